import { useQuery } from "@tanstack/react-query";
import { useConfirmation } from "../../../ui/confirmation";
import { AdminList } from "../data-view/admin-list";
import { Section } from "../data-view/section";
import { formatTime } from "./format-time";
import { securityQueries, useClearLock } from "./queries";
import type { BruteForceLock } from "./security-api";

/** Brute-force counters and lockouts (phones masked); clearing one is confirmed first. */
export function LockoutsSection({ onNotice }: { onNotice: (message: string, error?: boolean) => void }) {
  const locks = useQuery(securityQueries.bruteForce());
  const clear = useClearLock();
  const confirm = useConfirmation();

  const askClear = (lock: BruteForceLock) =>
    confirm.ask({
      title: "Clear this lock?",
      text: `Forget the failed attempts of ${lock.display} and lift its lockout now.`,
      confirmLabel: "Clear",
      onConfirm: () =>
        clear.mutate(lock.identifier, {
          onSuccess: (message) => onNotice(message),
          onError: (error) => onNotice(error.message, true),
          onSettled: confirm.close,
        }),
    });

  return (
    <Section id="security-locks-heading" title="Brute-force locks">
      <AdminList
        query={locks}
        loadingLabel="Loading locks"
        emptyText="No failed sign-in counters."
        label="Brute-force locks"
        rowKey={(lock) => lock.identifier}
        columns={[
          { header: "Identifier", cell: (lock) => lock.display, sx: { overflowWrap: "anywhere" } },
          { header: "Kind", cell: (lock) => lock.kind },
          { header: "Failures", cell: (lock) => lock.failures },
          {
            header: "State",
            cell: (lock) => (lock.is_locked ? `Locked until ${formatTime(lock.locked_until)}` : "Not locked"),
          },
        ]}
        actions={[
          { label: "Clear", color: "error", ariaLabel: (lock) => `Clear ${lock.display}`, onClick: askClear },
        ]}
      />
      {confirm.dialog({ busy: clear.isPending })}
    </Section>
  );
}
