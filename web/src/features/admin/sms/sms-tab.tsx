import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Card from "@mui/material/Card";
import CardContent from "@mui/material/CardContent";
import Chip from "@mui/material/Chip";
import LinearProgress from "@mui/material/LinearProgress";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { smsSuccessColor } from "@turnout/domain";
import { useState } from "react";
import { useConfirmation } from "../../../ui/confirmation";
import { useNoticeToast } from "../../../ui/notice-toast";
import { StatusFilter } from "../../../ui/status-filter";
import { AdminList } from "../data-view/admin-list";
import type { Column } from "../data-view/data-table";
import { useSmsAction, useSmsQueue, useSmsService } from "./queries";
import { SMS_QUEUE_STATUSES, type SmsQueueItem, type SmsQueueStatus, type SmsService } from "./sms-api";

/** SPEC 4: connected, error, not_configured, anything else reads as disconnected. */
const SERVICE_STATUS: Record<string, { label: string; color: "success" | "error" | "default" | "warning" }> =
  {
    connected: { label: "Connected", color: "success" },
    error: { label: "Error", color: "error" },
    not_configured: { label: "Not configured", color: "default" },
    disconnected: { label: "Disconnected", color: "warning" },
  };

/** Kinds whose body is a one-time code: the server sends none, and they are never sent again. */
const CODE_KINDS = new Set(["otp", "activation"]);

function formatTime(value: string | null | undefined): string {
  if (!value) return "Never";
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? value : date.toLocaleString("en-AU");
}

function ServiceCard({ service }: { service: SmsService }) {
  const status = SERVICE_STATUS[service.status] ?? SERVICE_STATUS.disconnected!;
  const rate = service.success_rate;
  return (
    <Card variant="outlined" component="section" aria-labelledby="sms-service-heading" sx={{ mb: 3 }}>
      <CardContent>
        <Stack direction="row" sx={{ alignItems: "center", gap: 1, mb: 1 }}>
          <Typography id="sms-service-heading" variant="subtitle1" component="h3" sx={{ fontWeight: 600 }}>
            SMS Service
          </Typography>
          <Chip size="small" color={status.color} label={status.label} />
        </Stack>
        <Typography variant="body2">Sender: {service.sender_address || "Not set"}</Typography>
        <Typography variant="body2">Last check: {formatTime(service.last_api_check)}</Typography>
        <Typography variant="body2">
          Response time: {service.api_response_time == null ? "Unknown" : `${service.api_response_time} ms`}
        </Typography>
        <Typography variant="body2">Total sent: {service.total_sent}</Typography>
        {rate == null ? (
          <Typography variant="body2">Success rate: no SMS finished yet</Typography>
        ) : (
          <Box sx={{ mt: 1, maxWidth: 360 }}>
            <Typography variant="body2" id="sms-success-rate">{`Success rate: ${rate}%`}</Typography>
            <LinearProgress
              variant="determinate"
              value={Math.min(100, Math.max(0, rate))}
              color={smsSuccessColor(rate)}
              aria-labelledby="sms-success-rate"
            />
          </Box>
        )}
      </CardContent>
    </Card>
  );
}

const QUEUE_COLUMNS: Column<SmsQueueItem>[] = [
  { header: "To", cell: (item) => item.to },
  { header: "Kind", cell: (item) => item.kind },
  { header: "Status", cell: (item) => item.status },
  {
    header: "Message",
    cell: (item) => item.body ?? <em>Hidden: carries a sign-in or activation code</em>,
    sx: { maxWidth: 360, overflowWrap: "anywhere" },
  },
  { header: "Attempts", cell: (item) => `${item.attempts} of ${item.max_attempts}` },
  {
    header: "Last error",
    cell: (item) => item.last_error ?? "",
    sx: { maxWidth: 240, overflowWrap: "anywhere" },
  },
  { header: "Queued", cell: (item) => formatTime(item.created_at) },
];

/**
 * The SMS tab (issue 12): the SMS service card (status, sender, last check, response time, success
 * rate in the SPEC 9 colours, total sent) and the queue, filterable by status, with retry one, retry
 * all failed (confirmed first) and release of stuck messages. Code SMS bodies are never shown.
 */
export function SmsTab() {
  const [status, setStatus] = useState<SmsQueueStatus | null>(null);
  const queue = useSmsQueue(status);
  const service = useSmsService();
  const action = useSmsAction();
  const confirm = useConfirmation();
  const { show, toast } = useNoticeToast();

  const run = (target: number | "all" | "stuck") =>
    action.mutate(target, {
      onSuccess: (message) => show(message),
      onError: (error) => show(error.message, true),
      onSettled: confirm.close,
    });

  return (
    <Box component="section" aria-labelledby="sms-heading">
      <Typography id="sms-heading" variant="h6" component="h2" sx={{ mb: 2 }}>
        SMS
      </Typography>
      {service.isError && <Alert severity="error">{service.error.message}</Alert>}
      {service.data && <ServiceCard service={service.data} />}

      <Stack direction="row" sx={{ alignItems: "center", gap: 1, mb: 2, flexWrap: "wrap" }}>
        <Typography variant="subtitle1" component="h3" sx={{ fontWeight: 600, mr: "auto" }}>
          Queue
        </Typography>
        <StatusFilter
          value={status}
          statuses={SMS_QUEUE_STATUSES}
          onChange={setStatus}
          sx={{ minWidth: 140 }}
        />
        <Button
          variant="outlined"
          disabled={action.isPending}
          onClick={() =>
            confirm.ask({
              title: "Retry all failed SMS?",
              text: "Every failed SMS (except sign-in and activation codes) is queued and sent again.",
              confirmLabel: "Retry all",
              onConfirm: () => run("all"),
            })
          }
        >
          Retry all failed
        </Button>
        <Button variant="outlined" disabled={action.isPending} onClick={() => run("stuck")}>
          Handle stuck
        </Button>
      </Stack>
      <AdminList
        query={queue}
        loadingLabel="Loading SMS queue"
        emptyText="No SMS in the queue."
        label="SMS queue"
        rowKey={(item) => item.id}
        columns={QUEUE_COLUMNS}
        actions={[
          {
            label: "Retry",
            ariaLabel: (item) => `Retry SMS ${item.id} to ${item.to}`,
            showIf: (item) => item.status === "failed" && !CODE_KINDS.has(item.kind),
            disabled: action.isPending,
            onClick: (item) => run(item.id),
          },
        ]}
      />

      {confirm.dialog({ busy: action.isPending })}
      {toast}
    </Box>
  );
}
