import {
  registerServiceWorker,
  type ServiceWorkerEnvironment,
  SKIP_WAITING_MESSAGE,
  UPDATE_CHECK_INTERVAL_MS,
} from "./register-service-worker";

class FakeWorker extends EventTarget {
  state: ServiceWorkerState = "installing";
  postMessage = vi.fn();
  setState(state: ServiceWorkerState) {
    this.state = state;
    this.dispatchEvent(new Event("statechange"));
  }
}

class FakeRegistration extends EventTarget {
  installing: FakeWorker | null = null;
  waiting: FakeWorker | null = null;
  active: FakeWorker | null = null;
  update = vi.fn(async () => undefined);
}

class FakeContainer extends EventTarget {
  controller: FakeWorker | null = null;
  registration = new FakeRegistration();
  register = vi.fn(async () => this.registration);
  changeController(worker: FakeWorker) {
    this.controller = worker;
    this.dispatchEvent(new Event("controllerchange"));
  }
}

function setup(options: { controlled?: boolean; readyState?: DocumentReadyState } = {}) {
  const container = new FakeContainer();
  if (options.controlled) container.controller = new FakeWorker();
  const page = new EventTarget();
  let online = true;
  const env = {
    container: container as unknown as ServiceWorkerContainer,
    window: Object.assign(page, {
      setInterval: (handler: () => void, ms: number) => window.setInterval(handler, ms),
      document: { readyState: options.readyState ?? "complete" },
    }) as unknown as ServiceWorkerEnvironment["window"],
    isOnline: () => online,
    reload: vi.fn(),
  } satisfies ServiceWorkerEnvironment;
  return {
    container,
    page,
    env,
    setOnline: (value: boolean) => {
      online = value;
    },
  };
}

/** Lets the awaited register() promise settle. */
const settle = () => vi.advanceTimersByTimeAsync(0);

describe("registerServiceWorker", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it("does nothing where service workers are unsupported", () => {
    const { env } = setup();
    expect(() => registerServiceWorker({ ...env, container: undefined })).not.toThrow();
  });

  it("registers /sw.js for the whole site once the page has loaded", async () => {
    const { container, page, env } = setup({ readyState: "loading" });
    registerServiceWorker(env);
    await settle();
    expect(container.register).not.toHaveBeenCalled();
    page.dispatchEvent(new Event("load"));
    await settle();
    expect(container.register).toHaveBeenCalledExactlyOnceWith("/sw.js", { scope: "/" });
  });

  it("registers at once when the page has already loaded", async () => {
    const { container, env } = setup();
    registerServiceWorker(env);
    await settle();
    expect(container.register).toHaveBeenCalledOnce();
  });

  it("checks for an update every hour while online", async () => {
    const { container, env, setOnline } = setup();
    registerServiceWorker(env);
    await settle();
    expect(container.registration.update).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS - 1);
    expect(container.registration.update).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(container.registration.update).toHaveBeenCalledTimes(1);
    setOnline(false);
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS);
    expect(container.registration.update).toHaveBeenCalledTimes(1);
    setOnline(true);
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS);
    expect(container.registration.update).toHaveBeenCalledTimes(2);
  });

  it("tells a worker already waiting at registration to take over", async () => {
    const { container, env } = setup({ controlled: true });
    const waiting = new FakeWorker();
    waiting.state = "installed";
    container.registration.waiting = waiting;
    registerServiceWorker(env);
    await settle();
    expect(waiting.postMessage).toHaveBeenCalledExactlyOnceWith(SKIP_WAITING_MESSAGE);
  });

  it("tells a newly installed worker to take over, then reloads once when it controls the page", async () => {
    const { container, env } = setup({ controlled: true });
    registerServiceWorker(env);
    await settle();

    const incoming = new FakeWorker();
    container.registration.installing = incoming;
    container.registration.dispatchEvent(new Event("updatefound"));
    expect(incoming.postMessage).not.toHaveBeenCalled();
    container.registration.installing = null;
    container.registration.waiting = incoming;
    incoming.setState("installed");
    expect(incoming.postMessage).toHaveBeenCalledExactlyOnceWith(SKIP_WAITING_MESSAGE);

    container.changeController(incoming);
    container.changeController(incoming);
    expect(env.reload).toHaveBeenCalledOnce();
  });

  it("does not reload when the first install claims an uncontrolled page", async () => {
    const { container, env } = setup({ controlled: false });
    registerServiceWorker(env);
    await settle();
    container.changeController(new FakeWorker());
    expect(env.reload).not.toHaveBeenCalled();
    // A later update replaces that worker: now the page reloads.
    container.changeController(new FakeWorker());
    expect(env.reload).toHaveBeenCalledOnce();
  });

  it("keeps the app working when the browser refuses the registration", async () => {
    const { container, env } = setup();
    container.register.mockRejectedValueOnce(new Error("SecurityError"));
    registerServiceWorker(env);
    await settle();
    await vi.advanceTimersByTimeAsync(UPDATE_CHECK_INTERVAL_MS);
    expect(container.registration.update).not.toHaveBeenCalled();
  });
});
