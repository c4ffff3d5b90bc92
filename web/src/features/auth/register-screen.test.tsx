import { screen, waitFor, within } from "@testing-library/react";
import { MESSAGES } from "@turnout/domain";
import { type MockApi, mockApi } from "../../testing/mock-api";
import { renderApp } from "../../testing/render-app";

// These tests type a whole form key by key; on a busy machine that outlasts Vitest's 5 s default.
vi.setConfig({ testTimeout: 15_000 });

const melbourne = { postcode: "3000", suburb: "MELBOURNE", state_abbreviation: "VIC" };
const richmonds = [
  { postcode: "3121", suburb: "RICHMOND", state_abbreviation: "VIC" },
  { postcode: "2753", suburb: "RICHMOND", state_abbreviation: "NSW" },
  { postcode: "7025", suburb: "RICHMOND", state_abbreviation: "TAS" },
];

async function openRegister(routes: Parameters<typeof mockApi>[0] = {}) {
  const server = mockApi({
    "GET /postcode/lookup/3000": { body: { success: true, data: [melbourne] } },
    "GET /postcode/search/Richmond": { body: { success: true, data: richmonds } },
    "GET /postcode/search/*": {
      status: 404,
      body: { success: false, error: "Location not found", message: "Location not found" },
    },
    ...routes,
  });
  const rendered = renderApp("/");
  await rendered.user.click(await screen.findByRole("button", { name: "Create New Account" }));
  await screen.findByRole("heading", { name: "Create Account" });
  return { ...rendered, server };
}

async function fillPeople(user: Awaited<ReturnType<typeof openRegister>>["user"]) {
  await user.type(screen.getByLabelText(/First name/), "Sam");
  await user.type(screen.getByLabelText(/Last name/), "Taylor");
  await user.type(screen.getByLabelText(/Phone number/), "0412 345 678");
  await user.selectOptions(screen.getByLabelText(/Agency/), "CFA");
}

function locationRequests(server: MockApi) {
  return server.requests.filter((request) => request.path.startsWith("/postcode/"));
}

describe("create account", () => {
  it("keeps 'Create Account' disabled until every field and a location are chosen", async () => {
    const { user } = await openRegister();
    const submit = screen.getByRole("button", { name: "Create Account" });
    expect(submit).toBeDisabled();
    await fillPeople(user);
    expect(submit).toBeDisabled();
    await user.type(screen.getByLabelText(/Location/), "3000");
    expect(await screen.findByText("Selected: MELBOURNE, VIC 3000")).toBeInTheDocument();
    expect(submit).toBeEnabled();
  });

  it("offers the four sign-up agencies", async () => {
    await openRegister();
    const options = within(screen.getByLabelText(/Agency/)).getAllByRole("option");
    expect(options.map((option) => (option as HTMLOptionElement).value)).toEqual([
      "",
      "FRV",
      "CFA",
      "SES",
      "Other",
    ]);
  });

  it("looks digits up only at exactly 4, and ignores under 2 characters", async () => {
    const { user, server } = await openRegister();
    const location = screen.getByLabelText(/Location/);
    await user.type(location, "300");
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(locationRequests(server)).toHaveLength(0);
    await user.type(location, "0");
    await screen.findByText("Selected: MELBOURNE, VIC 3000");
    expect(locationRequests(server).map((r) => r.path)).toEqual(["/postcode/lookup/3000"]);
    await user.clear(location);
    await user.type(location, "R");
    await new Promise((resolve) => setTimeout(resolve, 350));
    expect(locationRequests(server)).toHaveLength(1);
  });

  it("searches text after a pause and lets the user pick one of several matches", async () => {
    const { user, server } = await openRegister();
    await user.type(screen.getByLabelText(/Location/), "Richmond");
    const picker = await screen.findByRole("dialog", { name: "Select Your Location" });
    // One search for the whole word: the pause came only after the last keystroke.
    expect(locationRequests(server).map((r) => r.path)).toEqual(["/postcode/search/Richmond"]);
    await user.click(within(picker).getByRole("option", { name: /RICHMOND\s*NSW 2753/ }));
    expect(await screen.findByText("Selected: RICHMOND, NSW 2753")).toBeInTheDocument();
  });

  it("lets the user pick a location with the arrow keys and Enter, starting on the first match", async () => {
    const { user } = await openRegister();
    await user.type(screen.getByLabelText(/Location/), "Richmond");
    const picker = await screen.findByRole("dialog", { name: "Select Your Location" });
    const matches = within(picker).getByRole("listbox", { name: "Select Your Location" });
    const options = within(matches).getAllByRole("option");
    expect(options.map((option) => option.textContent)).toEqual([
      "RICHMONDVIC 3121",
      "RICHMONDNSW 2753",
      "RICHMONDTAS 7025",
    ]);
    await waitFor(() => expect(options[0]).toHaveFocus());

    await user.keyboard("{ArrowDown}{ArrowDown}");
    expect(options[2]).toHaveFocus();
    expect(options[2]).toHaveAttribute("aria-selected", "true");
    await user.keyboard("{ArrowUp}");
    expect(options[1]).toHaveFocus();
    await user.keyboard("{Enter}");

    expect(await screen.findByText("Selected: RICHMOND, NSW 2753")).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
  });

  it("clears the chosen location on any edit", async () => {
    const { user } = await openRegister();
    await fillPeople(user);
    const location = screen.getByLabelText(/Location/);
    await user.type(location, "3000");
    await screen.findByText("Selected: MELBOURNE, VIC 3000");
    await user.type(location, "1");
    expect(screen.queryByText(/Selected:/)).not.toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Create Account" })).toBeDisabled();
  });

  it("shows 'Location not found' when nothing matches", async () => {
    const { user } = await openRegister();
    await user.type(screen.getByLabelText(/Location/), "Atlantis");
    expect(await screen.findByText(MESSAGES.LOCATION_NOT_FOUND)).toBeInTheDocument();
  });

  it("says the search failed when the server errors", async () => {
    const { user } = await openRegister({
      "GET /postcode/lookup/3000": { status: 500, body: { success: false } },
    });
    await user.type(screen.getByLabelText(/Location/), "3000");
    expect(await screen.findByText(MESSAGES.LOCATION_FAILED)).toBeInTheDocument();
  });

  it("registers and goes to activation with the normalised phone", async () => {
    const { user, server } = await openRegister({
      "POST /auth/register": { status: 201, body: { success: true, message: "ok", needsVerification: true } },
    });
    await fillPeople(user);
    await user.type(screen.getByLabelText(/Location/), "3000");
    await screen.findByText("Selected: MELBOURNE, VIC 3000");
    await user.click(screen.getByRole("button", { name: "Create Account" }));
    expect(await screen.findByRole("heading", { name: "Verify Your Account" })).toBeInTheDocument();
    expect(server.callsTo("POST /auth/register")[0]?.body).toEqual({
      first_name: "Sam",
      last_name: "Taylor",
      phone: "+61412345678",
      user_agency: "CFA",
      postcode: "3000",
      town_name: "MELBOURNE",
      state_name: "VIC",
    });
  });

  it("offers the chosen agency's units nearest the chosen place, and registers the member in those ticked", async () => {
    const unit = (id: number, name: string, distance_km: number) => ({
      id,
      name,
      code: null,
      agency_id: 2,
      agency_name: "Country Fire Authority",
      suburb: null,
      state: "VIC",
      distance_km,
    });
    const { user, server } = await openRegister({
      "GET /units/nearby": {
        body: { success: true, data: [unit(10, "Melbourne City", 0), unit(11, "Carlton", 2)] },
      },
      "POST /auth/register": { status: 201, body: { success: true, message: "ok", needsVerification: true } },
    });
    await fillPeople(user);
    await user.type(screen.getByLabelText(/Location/), "3000");
    const group = await screen.findByRole("group", { name: /Your brigade or unit/ });
    expect(
      within(group)
        .getAllByRole("checkbox")
        .map((c) => c.closest("label")?.textContent),
    ).toEqual(["Melbourne City \u00b7 0 km", "Carlton \u00b7 2 km"]);
    const asked = server.callsTo("GET /units/nearby")[0]?.query;
    expect([asked?.get("agency"), asked?.get("postcode"), asked?.get("suburb")]).toEqual([
      "CFA",
      "3000",
      "MELBOURNE",
    ]);
    await user.click(within(group).getByRole("checkbox", { name: /Carlton/ }));
    await user.click(screen.getByRole("button", { name: "Create Account" }));
    await screen.findByRole("heading", { name: "Verify Your Account" });
    expect(server.callsTo("POST /auth/register")[0]?.body).toMatchObject({
      user_agency: "CFA",
      unit_ids: [11],
    });
  });

  async function submitComplete(routes: Parameters<typeof mockApi>[0]) {
    const rendered = await openRegister(routes);
    await fillPeople(rendered.user);
    await rendered.user.type(screen.getByLabelText(/Location/), "3000");
    await screen.findByText("Selected: MELBOURNE, VIC 3000");
    await rendered.user.click(screen.getByRole("button", { name: "Create Account" }));
    return rendered;
  }

  it("opens 'Account Already Exists' for a taken phone; 'Use Different Number' clears it", async () => {
    const { user } = await submitComplete({
      "POST /auth/register": {
        status: 409,
        body: {
          success: false,
          errorType: "conflict",
          message: "A user with this phone number already exists",
        },
      },
    });
    const dialog = await screen.findByRole("dialog", { name: "Account Already Exists" });
    await user.click(within(dialog).getByRole("button", { name: "Use Different Number" }));
    await waitFor(() => expect(screen.queryByRole("dialog")).not.toBeInTheDocument());
    expect(screen.getByLabelText(/Phone number/)).toHaveValue("");
  });

  it("'Go to Login' from 'Account Already Exists' opens login with the phone filled in", async () => {
    const { user } = await submitComplete({
      "POST /auth/register": {
        status: 409,
        body: {
          success: false,
          errorType: "conflict",
          message: "A user with this phone number already exists",
        },
      },
    });
    const dialog = await screen.findByRole("dialog", { name: "Account Already Exists" });
    await user.click(within(dialog).getByRole("button", { name: "Go to Login" }));
    expect(await screen.findByRole("heading", { name: "Sign In" })).toBeInTheDocument();
    expect(screen.getByLabelText(/Phone number/)).toHaveValue("+61412345678");
  });

  it("opens 'Account Needs Verification' for an unverified account and goes to login", async () => {
    const { user } = await submitComplete({
      "POST /auth/register": {
        status: 409,
        body: {
          success: false,
          errorType: "account_not_activated",
          needsVerification: true,
          message: "Account exists but is not verified",
        },
      },
    });
    const dialog = await screen.findByRole("dialog", { name: "Account Needs Verification" });
    expect(dialog).toHaveTextContent(/Login page/);
    await user.click(within(dialog).getByRole("button", { name: "Go to Login Page" }));
    expect(await screen.findByRole("heading", { name: "Sign In" })).toBeInTheDocument();
  });

  it("tells the user how long to wait after too many registrations", async () => {
    await submitComplete({
      "POST /auth/register": {
        status: 429,
        body: { success: false, errorType: "rate_limited", retryAfter: 90 },
      },
    });
    const alert = await screen.findByRole("alert");
    expect(alert).toHaveTextContent("Too many attempts. Please wait 2 minutes before trying again.");
    expect(alert).toHaveClass("kit-notice--error");
  });

  it("shows field errors from a 400 reply", async () => {
    await submitComplete({
      "POST /auth/register": {
        status: 400,
        body: {
          success: false,
          errorType: "validation_error",
          message: "Please check the form",
          fields: [{ field: "body.last_name", message: "Last name is too long" }],
        },
      },
    });
    expect(await screen.findByRole("alert")).toHaveTextContent("Please check the form");
    expect(screen.getByText("Last name is too long")).toBeInTheDocument();
  });

  it("goes back to login", async () => {
    const { user } = await openRegister();
    await user.click(screen.getByRole("button", { name: "Back to Login" }));
    expect(await screen.findByRole("heading", { name: "Sign In" })).toBeInTheDocument();
  });
});

describe("create account, checked before sending", () => {
  it("rejects an implausible phone number without calling the server", async () => {
    const { user, server } = await openRegister();
    await user.type(screen.getByLabelText(/First name/), "Sam");
    await user.type(screen.getByLabelText(/Last name/), "Taylor");
    await user.type(screen.getByLabelText(/Phone number/), "123");
    await user.selectOptions(screen.getByLabelText(/Agency/), "SES");
    await user.type(screen.getByLabelText(/Location/), "3000");
    await screen.findByText("Selected: MELBOURNE, VIC 3000");
    await user.click(screen.getByRole("button", { name: "Create Account" }));
    expect(await screen.findByText("Please enter a valid phone number")).toBeInTheDocument();
    expect(server.callsTo("POST /auth/register")).toHaveLength(0);
  });
});
