import TextField from "@mui/material/TextField";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { FormDialog } from "../data-view/form-dialog";
import { FormTextField } from "../data-view/form-fields";
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

  const handleSubmit = () => {
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
    <FormDialog
      open={open}
      title={agency ? `Edit ${agency.name}` : "New Agency"}
      error={save.isError ? errorText(save.error) : null}
      submitLabel={agency ? "Save" : "Create"}
      busy={save.isPending}
      onSubmit={handleSubmit}
      onClose={onClose}
    >
      <FormTextField
        label="Name"
        value={name}
        onValue={setName}
        fieldError={fieldErrors.name}
        required
        fullWidth
        slotProps={{ htmlInput: { maxLength: 100 } }}
      />
      <FormTextField
        label="Code"
        value={code}
        onValue={setCode}
        fieldError={fieldErrors.code}
        hint="Short name, e.g. CFA; PagerMon's CSV names agencies by it"
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
    </FormDialog>
  );
}
