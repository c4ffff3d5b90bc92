import Alert from "@mui/material/Alert";
import Button from "@mui/material/Button";
import CircularProgress from "@mui/material/CircularProgress";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableContainer from "@mui/material/TableContainer";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import Typography from "@mui/material/Typography";
import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { ConfirmDialog } from "../../../ui/confirm-dialog";
import { securityQueries, useClearLock } from "./queries";
import { formatTime, Section } from "./section";
import type { BruteForceLock } from "./security-api";

/** Brute-force counters and lockouts (phones masked); clearing one is confirmed first. */
export function LockoutsSection({ onNotice }: { onNotice: (message: string, error?: boolean) => void }) {
  const locks = useQuery(securityQueries.bruteForce());
  const clear = useClearLock();
  const [clearing, setClearing] = useState<BruteForceLock | null>(null);

  const handleConfirm = () => {
    if (!clearing) return;
    clear.mutate(clearing.identifier, {
      onSuccess: (message) => onNotice(message),
      onError: (error) => onNotice(error.message, true),
      onSettled: () => setClearing(null),
    });
  };

  return (
    <Section id="security-locks-heading" title="Brute-force locks">
      {locks.isPending && <CircularProgress aria-label="Loading locks" />}
      {locks.isError && <Alert severity="error">{locks.error.message}</Alert>}
      {locks.data?.length === 0 && <Typography>No failed sign-in counters.</Typography>}
      {locks.data && locks.data.length > 0 && (
        <TableContainer>
          <Table size="small" aria-label="Brute-force locks">
            <TableHead>
              <TableRow>
                <TableCell>Identifier</TableCell>
                <TableCell>Kind</TableCell>
                <TableCell>Failures</TableCell>
                <TableCell>State</TableCell>
                <TableCell>Actions</TableCell>
              </TableRow>
            </TableHead>
            <TableBody>
              {locks.data.map((lock) => (
                <TableRow key={lock.identifier}>
                  <TableCell sx={{ overflowWrap: "anywhere" }}>{lock.display}</TableCell>
                  <TableCell>{lock.kind}</TableCell>
                  <TableCell>{lock.failures}</TableCell>
                  <TableCell>
                    {lock.is_locked ? `Locked until ${formatTime(lock.locked_until)}` : "Not locked"}
                  </TableCell>
                  <TableCell>
                    <Button
                      size="small"
                      color="error"
                      onClick={() => setClearing(lock)}
                      aria-label={`Clear ${lock.display}`}
                    >
                      Clear
                    </Button>
                  </TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
        </TableContainer>
      )}
      <ConfirmDialog
        open={clearing !== null}
        title="Clear this lock?"
        text={`Forget the failed attempts of ${clearing?.display ?? ""} and lift its lockout now.`}
        confirmLabel="Clear"
        busy={clear.isPending}
        onCancel={() => setClearing(null)}
        onConfirm={handleConfirm}
      />
    </Section>
  );
}
