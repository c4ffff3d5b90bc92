import { act, render, screen, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { PwaDebugPage } from "./pwa-debug-page";

function renderPage() {
  const onBackToLogin = vi.fn();
  const user = userEvent.setup();
  render(<PwaDebugPage onBackToLogin={onBackToLogin} />);
  return { user, onBackToLogin };
}

/** The value cell beside a row heading, within one section's table. */
async function cellValue(section: string, row: string): Promise<string> {
  const table = await screen.findByRole("table", { name: section });
  const heading = within(table).getByRole("rowheader", { name: row });
  return heading.nextElementSibling?.textContent ?? "";
}

function fakeWorker(state: ServiceWorkerState, script = "http://localhost/sw.js") {
  return { state, scriptURL: script } as ServiceWorker;
}

function installFakeBrowser() {
  const registration = {
    scope: "http://localhost/",
    active: fakeWorker("activated") as ServiceWorker | null,
    waiting: null as ServiceWorker | null,
    installing: null as ServiceWorker | null,
    update: vi.fn(async () => undefined),
  };
  const container = Object.assign(new EventTarget(), {
    controller: fakeWorker("activated"),
    getRegistration: vi.fn(async () => registration),
  });
  Object.defineProperty(navigator, "serviceWorker", { value: container, configurable: true });
  const cacheEntries: Record<string, string[]> = {
    "workbox-precache-v2-http://localhost/": ["/index.html", "/assets/index.js", "/icon.svg"],
  };
  vi.stubGlobal("caches", {
    keys: async () => Object.keys(cacheEntries),
    open: async (name: string) => ({ keys: async () => cacheEntries[name] ?? [] }),
  });
  const link = document.createElement("link");
  link.rel = "manifest";
  link.href = "/manifest.webmanifest";
  document.head.append(link);
  vi.stubGlobal(
    "fetch",
    vi.fn(
      async () =>
        new Response(
          JSON.stringify({
            name: "Turnout",
            short_name: "Turnout",
            display: "standalone",
            start_url: "/",
            theme_color: "#b71c1c",
            icons: [{ purpose: "any" }, { purpose: "any" }, { purpose: "maskable" }],
          }),
        ),
    ),
  );
  return { registration, container, removeManifestLink: () => link.remove() };
}

describe("PwaDebugPage", () => {
  let cleanupBrowser: (() => void) | undefined;
  afterEach(() => {
    cleanupBrowser?.();
    cleanupBrowser = undefined;
    Reflect.deleteProperty(navigator, "serviceWorker");
  });

  it("says 'unsupported' where the browser lacks service workers and cache storage", async () => {
    renderPage();
    expect(await cellValue("Service Worker", "Service worker supported")).toBe("No (unsupported)");
    expect(await cellValue("Caches", "Cache storage")).toBe("unsupported");
    expect(await cellValue("Manifest", "Manifest link")).toBe("none");
    expect(await cellValue("Install and Display", "Install prompt (beforeinstallprompt)")).toBe(
      "unsupported",
    );
    expect(await cellValue("Install and Display", "iOS home-screen flag (navigator.standalone)")).toBe(
      "unsupported",
    );
  });

  it("shows the worker's registration, states and controller", async () => {
    const fake = installFakeBrowser();
    cleanupBrowser = fake.removeManifestLink;
    renderPage();
    expect(await cellValue("Service Worker", "Service worker supported")).toBe("Yes");
    expect(await cellValue("Service Worker", "Registered")).toBe("Yes");
    expect(await cellValue("Service Worker", "Scope")).toBe("http://localhost/");
    expect(await cellValue("Service Worker", "Active worker")).toBe("activated (http://localhost/sw.js)");
    expect(await cellValue("Service Worker", "Waiting worker")).toBe("none");
    expect(await cellValue("Service Worker", "Controller")).toBe("activated (http://localhost/sw.js)");
  });

  it("fetches the manifest and shows its name, display and icon count", async () => {
    const fake = installFakeBrowser();
    cleanupBrowser = fake.removeManifestLink;
    renderPage();
    expect(await cellValue("Manifest", "Name")).toBe("Turnout");
    expect(await cellValue("Manifest", "Display")).toBe("standalone");
    expect(await cellValue("Manifest", "Icons")).toBe("3 (1 maskable)");
  });

  it("lists the caches with their entry counts", async () => {
    const fake = installFakeBrowser();
    cleanupBrowser = fake.removeManifestLink;
    renderPage();
    expect(await cellValue("Caches", "workbox-precache-v2-http://localhost/")).toBe("3 entries");
  });

  it("notices an install prompt offered while it is open", async () => {
    Object.defineProperty(window, "onbeforeinstallprompt", { value: null, configurable: true });
    try {
      renderPage();
      expect(await cellValue("Install and Display", "Install prompt (beforeinstallprompt)")).toBe(
        "supported, not fired since this page opened",
      );
      act(() => {
        window.dispatchEvent(new Event("beforeinstallprompt"));
      });
      expect(await cellValue("Install and Display", "Install prompt (beforeinstallprompt)")).toBe(
        "available: fired since this page opened",
      );
    } finally {
      Reflect.deleteProperty(window, "onbeforeinstallprompt");
    }
  });

  it("checks for updates and reports what it found", async () => {
    const fake = installFakeBrowser();
    cleanupBrowser = fake.removeManifestLink;
    const { user } = renderPage();
    await screen.findByRole("table", { name: "Service Worker" });

    await user.click(screen.getByRole("button", { name: "Check for Updates" }));
    expect(fake.registration.update).toHaveBeenCalledOnce();
    expect(await screen.findByText(/no update found/)).toBeInTheDocument();

    fake.registration.update.mockImplementationOnce(async () => {
      fake.registration.installing = fakeWorker("installing", "http://localhost/sw.js?v2");
    });
    await user.click(screen.getByRole("button", { name: "Check for Updates" }));
    expect(await screen.findByText(/a new version is installing/)).toBeInTheDocument();
    expect(await cellValue("Service Worker", "Installing worker")).toBe(
      "installing (http://localhost/sw.js?v2)",
    );
  });

  it("reports a failed update check", async () => {
    const fake = installFakeBrowser();
    cleanupBrowser = fake.removeManifestLink;
    fake.registration.update.mockRejectedValueOnce(new TypeError("Failed to fetch"));
    const { user } = renderPage();
    await user.click(await screen.findByRole("button", { name: "Check for Updates" }));
    expect(await screen.findByText("Update check failed: Failed to fetch")).toBeInTheDocument();
  });

  it("goes back to login", async () => {
    const { user, onBackToLogin } = renderPage();
    await user.click(screen.getByRole("button", { name: "Back to Login" }));
    expect(onBackToLogin).toHaveBeenCalledOnce();
  });
});
