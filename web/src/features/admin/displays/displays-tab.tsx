import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import MenuItem from "@mui/material/MenuItem";
import Table from "@mui/material/Table";
import TableBody from "@mui/material/TableBody";
import TableCell from "@mui/material/TableCell";
import TableHead from "@mui/material/TableHead";
import TableRow from "@mui/material/TableRow";
import TextField from "@mui/material/TextField";
import Typography from "@mui/material/Typography";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { z } from "zod";
import { api } from "../../../api/client";

const displaySchema = z.object({
  id: z.number(),
  unit_id: z.number(),
  unit_name: z.string().nullable(),
  name: z.string(),
  idle_minutes: z.number(),
  paired: z.boolean(),
  paired_at: z.string().nullable(),
  last_seen_at: z.string().nullable(),
});
type Display = z.infer<typeof displaySchema>;
const unitSchema = z.object({ id: z.number(), name: z.string(), agency_name: z.string() });

const keys = { displays: ["admin", "displays"] as const, units: ["admin", "displays", "units"] as const };
const displaysApi = {
  list: async () => z.array(displaySchema).parse((await api.get<{ data: unknown }>("/admin/displays")).data),
  units: async () =>
    z.array(unitSchema).parse((await api.get<{ data: unknown }>("/admin/displays/units")).data),
  create: (body: { unit_id: number; name: string; idle_minutes: number }) =>
    api.post("/admin/displays", body),
  pair: (id: number, code: string) => api.post(`/admin/displays/${id}/pair`, { code }),
  unpair: (id: number) => api.post(`/admin/displays/${id}/unpair`),
  remove: (id: number) => api.delete(`/admin/displays/${id}`),
};

const errorText = (error: unknown) =>
  error instanceof Error ? error.message : "That did not work. Try again.";

/**
 * Station displays (issue 34): a display shows one unit's jobs on a screen in the station. Open
 * /board on the screen, then enter the code it shows here.
 */
export function DisplaysTab() {
  const queryClient = useQueryClient();
  const displays = useQuery({ queryKey: keys.displays, queryFn: displaysApi.list });
  const units = useQuery({ queryKey: keys.units, queryFn: displaysApi.units });
  const [unitId, setUnitId] = useState<number | "">("");
  const [name, setName] = useState("");
  const [idle, setIdle] = useState("30");
  const refresh = () => void queryClient.invalidateQueries({ queryKey: keys.displays });
  const create = useMutation({
    mutationFn: () => displaysApi.create({ unit_id: Number(unitId), name, idle_minutes: Number(idle) }),
    onSuccess: () => {
      setName("");
      refresh();
    },
  });

  return (
    <Box sx={{ display: "flex", flexDirection: "column", gap: 3 }}>
      <Typography variant="h6" component="h2">
        Station displays
      </Typography>
      <Typography color="text.secondary">
        A display shows one unit's current job, who is responding and the map on a screen in the station. Open{" "}
        <strong>{`${window.location.origin}/board`}</strong> on the screen (full screen, kept on), then pair
        it here with the code it shows. A display reads only its unit's jobs and answers, and is no one's
        device.
      </Typography>
      <Box
        component="form"
        aria-label="New display"
        onSubmit={(event) => {
          event.preventDefault();
          create.mutate();
        }}
        sx={{ display: "flex", flexWrap: "wrap", gap: 2, alignItems: "flex-start" }}
      >
        <TextField
          select
          label="Unit"
          value={unitId}
          onChange={(event) => setUnitId(Number(event.target.value))}
          sx={{ minWidth: 260 }}
          required
        >
          {(units.data ?? []).map((unit) => (
            <MenuItem key={unit.id} value={unit.id}>
              {unit.name} ({unit.agency_name})
            </MenuItem>
          ))}
        </TextField>
        <TextField
          label="Display name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          required
        />
        <TextField
          label="Idle clock after (minutes)"
          type="number"
          value={idle}
          onChange={(event) => setIdle(event.target.value)}
          slotProps={{ htmlInput: { min: 1, max: 1440 } }}
        />
        <Button
          type="submit"
          variant="contained"
          disabled={create.isPending || unitId === "" || name.trim() === ""}
        >
          Add display
        </Button>
      </Box>
      {create.isError ? <Alert severity="error">{errorText(create.error)}</Alert> : null}
      {displays.isError ? (
        <Alert severity="error" action={<Button onClick={() => void displays.refetch()}>Retry</Button>}>
          The displays could not be loaded.
        </Alert>
      ) : null}
      <Table aria-label="Displays" size="small">
        <TableHead>
          <TableRow>
            <TableCell>Display</TableCell>
            <TableCell>Unit</TableCell>
            <TableCell>Screen</TableCell>
            <TableCell>Last seen</TableCell>
            <TableCell>Actions</TableCell>
          </TableRow>
        </TableHead>
        <TableBody>
          {(displays.data ?? []).map((display) => (
            <DisplayRow key={display.id} display={display} onChanged={refresh} />
          ))}
        </TableBody>
      </Table>
      {displays.data?.length === 0 ? <Typography color="text.secondary">No displays yet.</Typography> : null}
    </Box>
  );
}

function DisplayRow({ display, onChanged }: { display: Display; onChanged: () => void }) {
  const [code, setCode] = useState("");
  const pair = useMutation({
    mutationFn: () => displaysApi.pair(display.id, code),
    onSuccess: () => {
      setCode("");
      onChanged();
    },
  });
  const unpair = useMutation({ mutationFn: () => displaysApi.unpair(display.id), onSuccess: onChanged });
  const remove = useMutation({ mutationFn: () => displaysApi.remove(display.id), onSuccess: onChanged });
  const failed = pair.error ?? unpair.error ?? remove.error;
  return (
    <TableRow>
      <TableCell>{display.name}</TableCell>
      <TableCell>{display.unit_name}</TableCell>
      <TableCell>{display.paired ? "Paired" : "Not paired"}</TableCell>
      <TableCell>
        {display.last_seen_at ? new Date(display.last_seen_at).toLocaleString("en-AU") : "Never"}
      </TableCell>
      <TableCell>
        <Box
          component="form"
          aria-label={`Pair ${display.name}`}
          onSubmit={(event) => {
            event.preventDefault();
            pair.mutate();
          }}
          sx={{ display: "flex", gap: 1, alignItems: "center", flexWrap: "wrap" }}
        >
          <TextField
            size="small"
            label="Code on the screen"
            value={code}
            onChange={(event) => setCode(event.target.value)}
            sx={{ width: 170 }}
          />
          <Button
            type="submit"
            size="small"
            variant="outlined"
            disabled={code.trim() === "" || pair.isPending}
          >
            {display.paired ? "Pair another screen" : "Pair"}
          </Button>
          {display.paired ? (
            <Button size="small" onClick={() => unpair.mutate()}>
              Sign the screen out
            </Button>
          ) : null}
          <Button size="small" color="error" onClick={() => remove.mutate()}>
            Remove
          </Button>
        </Box>
        {failed ? (
          <Alert severity="error" sx={{ mt: 1 }}>
            {errorText(failed)}
          </Alert>
        ) : null}
      </TableCell>
    </TableRow>
  );
}
