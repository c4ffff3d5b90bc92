import { render, screen, waitFor, within } from "@testing-library/react";
import { createChallenge, verifySolution } from "altcha-lib";
import { deriveKey } from "altcha-lib/algorithms/web/pbkdf2";
import { onDeviceCheck, solveProofOfWork } from "../../api/proof-of-work";
import { storage } from "../../api/storage";
import { mockApi } from "../../testing/mock-api";
import { renderApp } from "../../testing/render-app";
import { makeToken, testUser } from "../../testing/session-fixtures";
import { pageNavigation } from "../../ui/page-navigation";
import { DEVICE_CHECK_TEXT, DeviceCheckNotice } from "./device-check-notice";

// Issue 27 in the browser: the device check (proof of work) a server under attack asks for, the
// device credential a sign-in hands out, and the proof a verified code gives for choosing a session.

const canCreate = { body: { success: true, canCreate: true, maxSessions: 2, sessions: [] } };
const codeSent = { body: { success: true, message: "Code sent" } };
const SECRET = "server-side-secret-for-this-test";

const challenge = (cost: number, counter: number) =>
  createChallenge({
    algorithm: "PBKDF2/SHA-256",
    cost,
    counter,
    deriveKey,
    hmacSignatureSecret: SECRET,
    hmacKeySignatureSecret: `${SECRET}-key`,
  });

async function submitPhone(user: ReturnType<typeof renderApp>["user"], phone = "0412 345 678") {
  await user.type(await screen.findByLabelText(/Phone number/), phone);
  await user.click(screen.getByRole("button", { name: "Send Code" }));
}

describe("the device check", () => {
  it("solves the server's challenge in the browser and sends the code request again", async () => {
    const seen: boolean[] = [];
    const unsubscribe = onDeviceCheck((checking) => seen.push(checking));
    let verified = false;
    const server = mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": async (request) => {
        const solution = request.headers.get("X-Altcha");
        if (!solution) {
          return {
            status: 428,
            body: {
              success: false,
              errorType: "proof_of_work_required",
              message: DEVICE_CHECK_TEXT,
              challenge: await challenge(50, 12),
            },
          };
        }
        const payload = JSON.parse(atob(solution));
        const result = await verifySolution({
          ...payload,
          deriveKey,
          hmacSignatureSecret: SECRET,
          hmacKeySignatureSecret: `${SECRET}-key`,
        });
        verified = result.verified;
        return result.verified ? codeSent : { status: 428, body: { success: false } };
      },
    });
    const { user } = renderApp("/");
    await submitPhone(user);
    expect(await screen.findByRole("heading", { name: "Enter Code" })).toBeInTheDocument();
    expect(verified).toBe(true);
    expect(server.callsTo("POST /auth/request-otp")).toHaveLength(2);
    expect(seen).toEqual([true, false]);
    unsubscribe();
  });

  it("says 'Checking your device...' while it works", async () => {
    render(<DeviceCheckNotice />);
    expect(screen.queryByText(DEVICE_CHECK_TEXT)).not.toBeInTheDocument();
    const abort = new AbortController();
    // A challenge no test waits out: aborted once the notice has been seen.
    const solving = solveProofOfWork(await challenge(100_000, 5_000), abort.signal).catch(() => "aborted");
    expect(await screen.findByRole("status")).toHaveTextContent(DEVICE_CHECK_TEXT);
    abort.abort();
    expect(await solving).toBe("aborted");
    await waitFor(() => expect(screen.queryByText(DEVICE_CHECK_TEXT)).not.toBeInTheDocument());
  });
});

describe("the device credential", () => {
  it("is kept from a sign-in and sent with the phone's next code request, and only that phone's", async () => {
    storage.setDeviceCredential("+61499999999", "someone-elses");
    const server = mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": codeSent,
      "POST /auth/verify-otp": {
        body: {
          success: true,
          data: {
            token: makeToken(),
            user: testUser,
            agency: null,
            device_credential: "cred-for-this-phone",
          },
        },
      },
    });
    vi.spyOn(pageNavigation, "reload").mockImplementation(() => {});
    const { user } = renderApp("/");
    await submitPhone(user);
    expect(server.callsTo("POST /auth/request-otp")[0]?.headers.get("X-Device-Credential")).toBeNull();
    await user.type(await screen.findByLabelText(/Verification code/), "123456");
    await user.click(screen.getByRole("button", { name: "Verify Code" }));
    await waitFor(() => expect(storage.getDeviceCredential("+61412345678")).toBe("cred-for-this-phone"));
    // It outlives the session: signing out does not forget the device.
    storage.clearSession();
    expect(storage.getDeviceCredential("+61412345678")).toBe("cred-for-this-phone");
    expect(storage.getDeviceCredential("+61499999999")).toBe("someone-elses");
  });

  it("goes with the code request, the check and the session choice for its phone", async () => {
    storage.setDeviceCredential("+61412345678", "cred-1");
    const server = mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": codeSent,
    });
    const { user } = renderApp("/");
    await submitPhone(user);
    await screen.findByRole("heading", { name: "Enter Code" });
    expect(server.callsTo("POST /sessions/check-limit")[0]?.headers.get("X-Device-Credential")).toBe(
      "cred-1",
    );
    expect(server.callsTo("POST /auth/request-otp")[0]?.headers.get("X-Device-Credential")).toBe("cred-1");
  });
});

describe("choosing a session to sign out", () => {
  it("sends the proof the verified code gave", async () => {
    const sessions = [
      {
        id: "11111111-1111-4111-8111-111111111111",
        device_info: "Chrome on Android (Mobile)",
        last_activity: new Date().toISOString(),
        ip_address: "10.0.0.x",
        created_at: new Date().toISOString(),
      },
    ];
    let verifyCalls = 0;
    const server = mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": codeSent,
      "POST /sessions/force-logout": { body: { success: true } },
      "POST /auth/verify-otp": () => {
        verifyCalls += 1;
        return verifyCalls === 1
          ? {
              status: 409,
              body: {
                success: false,
                errorType: "session_limit",
                maxSessions: 1,
                sessions,
                eviction_token: "proof-of-code",
              },
            }
          : { body: { success: true, data: { token: makeToken(), user: testUser, agency: null } } };
      },
    });
    vi.spyOn(pageNavigation, "reload").mockImplementation(() => {});
    const { user } = renderApp("/");
    await submitPhone(user);
    await user.type(await screen.findByLabelText(/Verification code/), "654321");
    await user.click(screen.getByRole("button", { name: "Verify Code" }));
    const dialog = await screen.findByRole("dialog", { name: "Maximum Devices Reached" });
    await user.click(within(dialog).getByRole("radio", { name: /Chrome on Android/ }));
    await user.click(within(dialog).getByRole("button", { name: "Logout Selected Device & Continue" }));
    await waitFor(() => expect(server.callsTo("POST /auth/verify-otp")).toHaveLength(2));
    expect(server.callsTo("POST /sessions/force-logout")[0]?.body).toMatchObject({
      sessionIdToLogout: sessions[0]!.id,
      eviction_token: "proof-of-code",
    });
  });
});

describe("SMS held back by the service's budget", () => {
  it("shows the server's words, not the failed-attempts lock", async () => {
    mockApi({
      "POST /sessions/check-limit": canCreate,
      "POST /auth/request-otp": {
        status: 429,
        headers: { "Retry-After": "1200" },
        body: {
          success: false,
          errorType: "sms_budget_exceeded",
          retryAfter: 1200,
          message:
            "Sign-in codes are paused for a while because of unusually many requests. Please try again in 20 minutes.",
        },
      },
    });
    const { user } = renderApp("/");
    await submitPhone(user);
    expect(await screen.findByRole("alert")).toHaveTextContent(/Sign-in codes are paused .* 20 minutes/);
    expect(screen.queryByRole("dialog")).not.toBeInTheDocument();
  });
});
