import Alert from "@mui/material/Alert";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Dialog from "@mui/material/Dialog";
import DialogActions from "@mui/material/DialogActions";
import DialogContent from "@mui/material/DialogContent";
import DialogTitle from "@mui/material/DialogTitle";
import Typography from "@mui/material/Typography";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type ChangeEvent, useEffect, useId, useState } from "react";
import { ConfirmDialog } from "../../../ui/confirm-dialog";
import { safeLogoPath } from "../../../ui/safe-logo-path";
import { type AdminAgency, agenciesApi } from "./agencies-api";
import { errorText } from "./error-text";
import { agencyAdminKeys } from "./queries";

/** The server's limits for a logo, checked first so a wrong file is refused before it is sent. */
const LOGO_MAX_BYTES = 2 * 1024 * 1024;
const LOGO_TYPES = ["image/png", "image/jpeg", "image/webp", "image/svg+xml"];

function LogoImage({ src, alt }: { src: string; alt: string }) {
  return (
    <Box
      component="img"
      src={src}
      alt={alt}
      sx={{ width: 96, height: 96, objectFit: "contain", border: 1, borderColor: "divider", borderRadius: 1 }}
    />
  );
}

/** An agency's logo: the current one, a chosen file previewed before upload, and removal. */
export function AgencyLogoDialog({ agency, onClose }: { agency: AdminAgency | null; onClose: () => void }) {
  const titleId = useId();
  const queryClient = useQueryClient();
  const [file, setFile] = useState<File | null>(null);
  const [preview, setPreview] = useState<string | null>(null);
  const [fileError, setFileError] = useState<string | null>(null);
  const [confirmRemove, setConfirmRemove] = useState(false);
  const [current, setCurrent] = useState<string | null>(null);

  useEffect(() => {
    if (!file) {
      setPreview(null);
      return;
    }
    const url = URL.createObjectURL(file);
    setPreview(url);
    return () => URL.revokeObjectURL(url);
  }, [file]);

  const onSaved = (saved: AdminAgency) => {
    setCurrent(safeLogoPath(saved.logo_path));
    setFile(null);
    void queryClient.invalidateQueries({ queryKey: agencyAdminKeys.all });
  };
  const upload = useMutation({
    mutationFn: (chosen: File) => agenciesApi.uploadLogo(agency?.id ?? 0, chosen),
    onSuccess: onSaved,
  });
  const remove = useMutation({
    mutationFn: () => agenciesApi.removeLogo(agency?.id ?? 0),
    onSuccess: (saved) => {
      setConfirmRemove(false);
      onSaved(saved);
    },
  });

  // Another agency opened starts clean; the same one reloaded after a change keeps the chosen file.
  const agencyId = agency?.id ?? null;
  const { reset: resetUpload } = upload;
  const { reset: resetRemove } = remove;
  useEffect(() => {
    if (agencyId === null) return;
    setFile(null);
    setFileError(null);
    setConfirmRemove(false);
    resetUpload();
    resetRemove();
  }, [agencyId, resetUpload, resetRemove]);
  const logoPath = agency?.logo_path;
  useEffect(() => setCurrent(safeLogoPath(logoPath)), [logoPath]);

  const handleChoose = (event: ChangeEvent<HTMLInputElement>) => {
    const chosen = event.target.files?.[0] ?? null;
    event.target.value = "";
    upload.reset();
    if (!chosen) return;
    if (!LOGO_TYPES.includes(chosen.type)) {
      setFile(null);
      setFileError("A logo must be a PNG, JPEG, WebP or SVG image.");
      return;
    }
    if (chosen.size > LOGO_MAX_BYTES) {
      setFile(null);
      setFileError("The logo must be at most 2 MB.");
      return;
    }
    setFileError(null);
    setFile(chosen);
  };

  const failure = fileError ?? (upload.isError ? errorText(upload.error) : null);
  return (
    <>
      <Dialog open={agency !== null} onClose={onClose} aria-labelledby={titleId} maxWidth="xs" fullWidth>
        <DialogTitle id={titleId}>{`Logo of ${agency?.name ?? ""}`}</DialogTitle>
        <DialogContent sx={{ display: "flex", flexDirection: "column", gap: 2 }}>
          <Box sx={{ display: "flex", gap: 3, alignItems: "flex-start" }}>
            <Box>
              <Typography variant="subtitle2" gutterBottom>
                Current
              </Typography>
              {current ? (
                <LogoImage src={current} alt={`Current logo of ${agency?.name ?? ""}`} />
              ) : (
                <Typography color="text.secondary">No logo</Typography>
              )}
            </Box>
            {preview ? (
              <Box>
                <Typography variant="subtitle2" gutterBottom>
                  New
                </Typography>
                <LogoImage src={preview} alt="Logo preview" />
              </Box>
            ) : null}
          </Box>
          {failure ? (
            <Alert severity="error" role="alert">
              {failure}
            </Alert>
          ) : null}
          <Box>
            <Button component="label" variant="outlined">
              Choose image
              <input
                type="file"
                accept={LOGO_TYPES.join(",")}
                onChange={handleChoose}
                style={{ position: "absolute", width: 1, height: 1, opacity: 0, overflow: "hidden" }}
              />
            </Button>
            <Typography variant="body2" color="text.secondary" sx={{ mt: 1 }}>
              {file ? file.name : "PNG, JPEG, WebP or SVG, at most 2 MB"}
            </Typography>
          </Box>
        </DialogContent>
        <DialogActions>
          {current ? (
            <Button color="error" onClick={() => setConfirmRemove(true)} sx={{ mr: "auto" }}>
              Remove logo
            </Button>
          ) : null}
          <Button onClick={onClose}>Close</Button>
          <Button
            variant="contained"
            disabled={!file || upload.isPending}
            onClick={() => file && upload.mutate(file)}
          >
            Upload
          </Button>
        </DialogActions>
      </Dialog>
      <ConfirmDialog
        open={confirmRemove}
        title="Remove logo?"
        text={`${agency?.name ?? "The agency"}'s alerts will show without a logo.`}
        confirmLabel="Remove"
        busy={remove.isPending}
        error={remove.isError ? errorText(remove.error) : null}
        onConfirm={() => remove.mutate()}
        onCancel={() => setConfirmRemove(false)}
      />
    </>
  );
}
