import type { Logger } from "pino";
import type { Config } from "../config.js";
import { createMessageMediaProvider, type ProviderCheck } from "./messagemedia-provider.js";
import { createOutboxProvider } from "./outbox-provider.js";
import type { SmsProvider } from "./provider.js";

/** The provider chosen by SMS_PROVIDER, with what the admin SMS card needs to know about it. */
export type ConfiguredSms = {
  provider: SmsProvider;
  /** False for the outbox: nothing leaves the machine. */
  enabled: boolean;
  sender: string | null;
  /** The provider's connection check, or null when there is nothing to check (outbox). */
  check: (() => Promise<ProviderCheck>) | null;
};

/** Builds the provider named by the configuration: the outbox file, or MessageMedia over HTTPS. */
export function createSmsProvider(config: Config, logger: Logger): ConfiguredSms {
  if (config.smsProvider === "http" && config.smsHttp) {
    const provider = createMessageMediaProvider({ ...config.smsHttp, sender: config.smsSender, logger });
    return { provider, enabled: true, sender: config.smsSender, check: () => provider.check() };
  }
  return {
    provider: createOutboxProvider(config.smsOutboxFile, logger),
    enabled: false,
    sender: config.smsSender,
    check: null,
  };
}
