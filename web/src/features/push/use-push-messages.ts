import { useEffect } from "react";
import { useLocation } from "wouter";
import { afterFirstContent } from "../../ui/first-content";
import { pushApi } from "./push-api";
import { subscriptionInput } from "./push-device";
import { resyncDeviceSubscription } from "./queries";

type WorkerMessage =
  | { type: "turnout:open"; url: string }
  | { type: "turnout:push-subscription"; subscription: PushSubscriptionJSON };

/**
 * What the service worker tells the open app: a tapped notification's job (opened in place, without a
 * reload) and a subscription the push service replaced (registered with the server). Also re-sends this
 * device's subscription once at start.
 */
export function usePushMessages(): void {
  const [, navigate] = useLocation();
  useEffect(() => {
    if (!("serviceWorker" in navigator)) return;
    // Once the first cards are on screen: the worker's registration and a request otherwise come first.
    const cancelResync = afterFirstContent(() => resyncDeviceSubscription().catch(() => undefined));
    const onMessage = (event: MessageEvent<WorkerMessage>) => {
      const message = event.data;
      if (
        message?.type === "turnout:open" &&
        typeof message.url === "string" &&
        message.url.startsWith("/")
      ) {
        navigate(message.url);
      } else if (message?.type === "turnout:push-subscription") {
        pushApi.subscribe(subscriptionInput(message.subscription)).catch(() => undefined);
      }
    };
    navigator.serviceWorker.addEventListener("message", onMessage);
    return () => {
      cancelResync();
      navigator.serviceWorker.removeEventListener("message", onMessage);
    };
  }, [navigate]);
}
