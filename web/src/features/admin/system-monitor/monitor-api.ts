import { api } from "../../../api/client";
import {
  num,
  readDashboard,
  readLogPage,
  readMessageMetrics,
  readMetrics,
  readSessionMetrics,
  readSmsMetrics,
  record,
} from "./monitor-readers";
import {
  LOG_PAGE_SIZE,
  type LogLevelFilter,
  type LogPage,
  type MessageMetrics,
  type SessionMetrics,
  type SmsMetrics,
  type SystemDashboard,
  type SystemMetrics,
} from "./monitor-types";

interface Envelope {
  success: boolean;
  data: unknown;
  total?: unknown;
}

// A 403 here means the signed-in user is no longer an admin: the monitor says so in its own words
// (SPEC 6) rather than through the general 'not authorised' dialog.
const quiet = { handlesForbidden: true } as const;

/** The system monitor's calls (SPEC 7 'Admin: sessions and system'). */
export const monitorApi = {
  async dashboard(signal?: AbortSignal): Promise<SystemDashboard> {
    const reply = await api.get<Envelope>("/admin/system/dashboard", { ...quiet, signal });
    return readDashboard(reply.data);
  },
  async metrics(signal?: AbortSignal): Promise<SystemMetrics> {
    const reply = await api.get<Envelope>("/admin/system/metrics", { ...quiet, signal });
    return readMetrics(reply.data);
  },
  async sessions(signal?: AbortSignal): Promise<SessionMetrics> {
    const reply = await api.get<Envelope>("/admin/system/sessions", { ...quiet, signal });
    return readSessionMetrics(reply.data);
  },
  async messages(signal?: AbortSignal): Promise<MessageMetrics> {
    const reply = await api.get<Envelope>("/admin/system/messages", { ...quiet, signal });
    return readMessageMetrics(reply.data);
  },
  async sms(signal?: AbortSignal): Promise<SmsMetrics> {
    const reply = await api.get<Envelope>("/admin/system/sms", { ...quiet, signal });
    return readSmsMetrics(reply.data);
  },
  async logs(level: LogLevelFilter, signal?: AbortSignal): Promise<LogPage> {
    const reply = await api.get<Envelope>("/admin/system/logs", {
      ...quiet,
      signal,
      query: { limit: LOG_PAGE_SIZE, offset: 0, level: level === "all" ? undefined : level },
    });
    return readLogPage(reply.data, reply.total);
  },
  async clearLogs(): Promise<number> {
    const reply = await api.post<Envelope>("/admin/system/logs/clear", undefined, quiet);
    return num(record(reply.data).cleared) ?? 0;
  },
};
