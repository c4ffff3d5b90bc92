import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import TextField from "@mui/material/TextField";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useState } from "react";
import { useConfirmation } from "../../../ui/confirmation";
import { AdminList } from "../data-view/admin-list";
import { FormDialog } from "../data-view/form-dialog";
import { ListDialog, useNotice } from "../data-view/list-dialog";
import { type AdminAgency, agenciesApi, type Capcode, type CapcodeFields } from "./agencies-api";
import { isCapcode, parseBulkCapcodes } from "./bulk-capcodes";
import { CapcodeMessagesDialog, type MessagesTarget } from "./capcode-messages-dialog";
import { errorText } from "./error-text";
import { agencyAdminKeys, agencyCapcodesQueryOptions } from "./queries";

/** Alias and area of one capcode. */
function CapcodeEditDialog({ capcode, onClose }: { capcode: Capcode | null; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [alias, setAlias] = useState("");
  const [area, setArea] = useState("");
  useEffect(() => {
    setAlias(capcode?.alias ?? "");
    setArea(capcode?.area ?? "");
  }, [capcode]);
  const save = useMutation({
    mutationFn: (fields: CapcodeFields) => agenciesApi.updateCapcode(capcode?.id ?? 0, fields),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: agencyAdminKeys.all });
      onClose();
    },
  });
  const { reset } = save;
  useEffect(() => {
    if (capcode) reset();
  }, [capcode, reset]);

  const handleSubmit = () => {
    if (!capcode) return;
    save.mutate({ capcode: capcode.capcode, alias: alias.trim() || null, area: area.trim() || null });
  };

  return (
    <FormDialog
      open={capcode !== null}
      title={`Edit capcode ${capcode?.capcode ?? ""}`}
      error={save.isError ? errorText(save.error) : null}
      busy={save.isPending}
      maxWidth="xs"
      onSubmit={handleSubmit}
      onClose={onClose}
    >
      <TextField label="Alias" value={alias} onChange={(event) => setAlias(event.target.value)} fullWidth />
      <TextField label="Area" value={area} onChange={(event) => setArea(event.target.value)} fullWidth />
    </FormDialog>
  );
}

/** Add one capcode: number required, alias and area optional. */
function AddCapcodeForm({ agencyId, onDone }: { agencyId: number; onDone: (text: string) => void }) {
  const queryClient = useQueryClient();
  const [capcode, setCapcode] = useState("");
  const [alias, setAlias] = useState("");
  const [area, setArea] = useState("");
  const [capcodeError, setCapcodeError] = useState<string | null>(null);
  const add = useMutation({
    mutationFn: (fields: CapcodeFields) => agenciesApi.createCapcode(agencyId, fields),
    onSuccess: (saved) => {
      setCapcode("");
      setAlias("");
      setArea("");
      onDone(`Capcode ${saved.capcode} added.`);
      void queryClient.invalidateQueries({ queryKey: agencyAdminKeys.all });
    },
  });

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (!isCapcode(capcode)) {
      setCapcodeError("1 to 10 digits");
      return;
    }
    setCapcodeError(null);
    add.mutate({ capcode: capcode.trim(), alias: alias.trim() || null, area: area.trim() || null });
  };

  return (
    <Box component="form" noValidate onSubmit={handleSubmit} aria-label="Add capcode">
      <Box sx={{ display: "flex", flexWrap: "wrap", gap: 1, alignItems: "flex-start" }}>
        <TextField
          label="Capcode"
          size="small"
          value={capcode}
          onChange={(event) => setCapcode(event.target.value)}
          error={capcodeError !== null}
          helperText={capcodeError}
          required
          slotProps={{ htmlInput: { inputMode: "numeric", maxLength: 10 } }}
        />
        <TextField
          label="Alias"
          size="small"
          value={alias}
          onChange={(event) => setAlias(event.target.value)}
        />
        <TextField label="Area" size="small" value={area} onChange={(event) => setArea(event.target.value)} />
        <Button type="submit" variant="contained" disabled={add.isPending}>
          Add
        </Button>
      </Box>
      {add.isError ? (
        <Alert severity="error" role="alert" sx={{ mt: 1 }}>
          {errorText(add.error)}
        </Alert>
      ) : null}
    </Box>
  );
}

/** Many capcodes at once, one a line; ones under another agency move here with their alerts. */
function BulkAddForm({ agencyId, onDone }: { agencyId: number; onDone: (text: string) => void }) {
  const queryClient = useQueryClient();
  const [text, setText] = useState("");
  const [errors, setErrors] = useState<string[]>([]);
  const bulk = useMutation({
    mutationFn: (capcodes: CapcodeFields[]) => agenciesApi.bulkAddCapcodes(agencyId, capcodes),
    onSuccess: (summary) => {
      setText("");
      onDone(summary);
      void queryClient.invalidateQueries({ queryKey: agencyAdminKeys.all });
    },
  });

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseBulkCapcodes(text);
    const problems =
      parsed.capcodes.length === 0 && parsed.errors.length === 0
        ? ["List at least one capcode."]
        : parsed.errors;
    setErrors(problems);
    if (problems.length === 0) bulk.mutate(parsed.capcodes);
  };

  return (
    <Box component="form" noValidate onSubmit={handleSubmit} aria-label="Bulk add capcodes">
      <TextField
        label="Capcodes, one a line"
        helperText="capcode, alias, area (alias and area optional; commas or tabs)"
        value={text}
        onChange={(event) => setText(event.target.value)}
        multiline
        minRows={3}
        fullWidth
      />
      {errors.length > 0 || bulk.isError ? (
        <Alert severity="error" role="alert" sx={{ mt: 1 }}>
          {bulk.isError ? errorText(bulk.error) : errors.join(" ")}
        </Alert>
      ) : null}
      <Button type="submit" variant="outlined" disabled={bulk.isPending} sx={{ mt: 1 }}>
        Add all
      </Button>
    </Box>
  );
}

/** One agency's capcodes: list, add, bulk add, edit alias and area, delete, and each one's messages. */
export function AgencyCapcodesDialog({
  agency,
  onClose,
}: {
  agency: AdminAgency | null;
  onClose: () => void;
}) {
  const queryClient = useQueryClient();
  const capcodes = useQuery({ ...agencyCapcodesQueryOptions(agency?.id ?? 0), enabled: agency !== null });
  const [notice, setNotice] = useNotice(agency?.id);
  const [editing, setEditing] = useState<Capcode | null>(null);
  const [messagesOf, setMessagesOf] = useState<MessagesTarget | null>(null);
  const confirm = useConfirmation();

  const remove = useMutation({
    mutationFn: (capcode: Capcode) => agenciesApi.deleteCapcode(capcode.id),
    onSuccess: (message) => {
      confirm.close();
      setNotice(message);
      void queryClient.invalidateQueries({ queryKey: agencyAdminKeys.all });
    },
  });
  const askDelete = (capcode: Capcode) => {
    remove.reset();
    confirm.ask({
      title: `Delete capcode ${capcode.capcode}?`,
      text: "Its alerts stay; new pages to it will be collected under Unmapped Capcodes again.",
      confirmLabel: "Delete",
      onConfirm: () => remove.mutate(capcode),
    });
  };

  const list = (
    <AdminList
      query={capcodes}
      loadingLabel="Loading capcodes"
      spinnerSize={24}
      errorText={errorText}
      emptyText="No capcodes yet."
      label={`Capcodes of ${agency?.name ?? ""}`}
      rowKey={(capcode) => capcode.id}
      actionsAlign="right"
      columns={[
        { header: "Capcode", cell: (capcode) => capcode.capcode, sx: { fontFamily: "monospace" } },
        { header: "Alias", cell: (capcode) => capcode.alias },
        { header: "Area", cell: (capcode) => capcode.area },
      ]}
      actions={[
        {
          label: "Messages",
          ariaLabel: (capcode) => `Messages of capcode ${capcode.capcode}`,
          onClick: setMessagesOf,
        },
        { label: "Edit", ariaLabel: (capcode) => `Edit capcode ${capcode.capcode}`, onClick: setEditing },
        {
          label: "Delete",
          color: "error",
          ariaLabel: (capcode) => `Delete capcode ${capcode.capcode}`,
          onClick: askDelete,
        },
      ]}
    />
  );

  return (
    <>
      <ListDialog
        open={agency !== null}
        title={`Capcodes of ${agency?.name ?? ""}`}
        notice={notice}
        onNoticeClose={() => setNotice(null)}
        onClose={onClose}
      >
        {list}
        {agency ? (
          <>
            <AddCapcodeForm agencyId={agency.id} onDone={setNotice} />
            <BulkAddForm agencyId={agency.id} onDone={setNotice} />
          </>
        ) : null}
      </ListDialog>
      <CapcodeEditDialog capcode={editing} onClose={() => setEditing(null)} />
      {confirm.dialog({ busy: remove.isPending, error: remove.isError ? errorText(remove.error) : null })}
      <CapcodeMessagesDialog target={messagesOf} onClose={() => setMessagesOf(null)} />
    </>
  );
}
