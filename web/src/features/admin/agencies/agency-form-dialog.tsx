import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import TextField from "@mui/material/TextField";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useEffect, useId, useState } from "react";
import { type AdminAgency, type AgencyFields, agenciesApi } from "./agencies-api";
import { errorText } from "./error-text";
import { agencyAdminKeys } from "./queries";

/** The server's rule for a code, checked before sending so the admin sees it at once. */
const CODE_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** Creates an agency (`agency` null) or edits one: name, code and an optional description. */
export function AgencyFormDialog({
  open,
  agency,
  onClose,
}: {
  open: boolean;
  agency: AdminAgency | null;
  onClose: () => void;
}) {
  const titleId = useId();
  const queryClient = useQueryClient();
  const [name, setName] = useState("");
  const [code, setCode] = useState("");
  const [description, setDescription] = useState("");
  const [fieldErrors, setFieldErrors] = useState<{ name?: string; code?: string }>({});

  useEffect(() => {
    if (!open) return;
    setName(agency?.name ?? "");
    setCode(agency?.code ?? "");
    setDescription(agency?.description ?? "");
    setFieldErrors({});
  }, [open, agency]);

  const save = useMutation({
    mutationFn: (fields: AgencyFields) =>
      agency ? agenciesApi.updateAgency(agency.id, fields) : agenciesApi.createAgency(fields),
    onSuccess: () => {
      void queryClient.invalidateQueries({ queryKey: agencyAdminKeys.all });
      onClose();
    },
  });
  const { reset } = save;
  useEffect(() => {
    if (open) reset();
  }, [open, reset]);

  const handleSubmit = (event: FormEvent) => {
    event.preventDefault();
    const errors: { name?: string; code?: string } = {};
    if (!name.trim()) errors.name = "Name is required";
    if (!CODE_PATTERN.test(code.trim())) errors.code = "Code is 1 to 32 letters, digits, '_' or '-'";
    setFieldErrors(errors);
    if (errors.name || errors.code) return;
    save.mutate({
      name: name.trim(),
      code: code.trim().toUpperCase(),
      description: description.trim() || null,
    });
  };

  return (
    <Dialog open={open} onClose={onClose} aria-labelledby={titleId} maxWidth="sm" fullWidth>
      <Box component="form" noValidate onSubmit={handleSubmit}>
        <DialogTitle id={titleId}>{agency ? `Edit ${agency.name}` : "New Agency"}</DialogTitle>
        <DialogContent sx={{ display: "flex", flexDirection: "column", gap: 2, pt: "8px !important" }}>
          {save.isError ? (
            <Alert severity="error" role="alert">
              {errorText(save.error)}
            </Alert>
          ) : null}
          <TextField
            label="Name"
            value={name}
            onChange={(event) => setName(event.target.value)}
            error={Boolean(fieldErrors.name)}
            helperText={fieldErrors.name}
            required
            fullWidth
            slotProps={{ htmlInput: { maxLength: 100 } }}
          />
          <TextField
            label="Code"
            value={code}
            onChange={(event) => setCode(event.target.value)}
            error={Boolean(fieldErrors.code)}
            helperText={fieldErrors.code ?? "Short name, e.g. CFA; PagerMon's CSV names agencies by it"}
            required
            fullWidth
            slotProps={{ htmlInput: { maxLength: 32 } }}
          />
          <TextField
            label="Description"
            value={description}
            onChange={(event) => setDescription(event.target.value)}
            multiline
            minRows={2}
            fullWidth
            slotProps={{ htmlInput: { maxLength: 500 } }}
          />
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose}>Cancel</Button>
          <Button type="submit" variant="contained" disabled={save.isPending}>
            {agency ? "Save" : "Create"}
          </Button>
        </DialogActions>
      </Box>
    </Dialog>
  );
}
