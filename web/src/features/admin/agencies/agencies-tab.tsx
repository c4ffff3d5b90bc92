import AddIcon from "@mui/icons-material/Add";
import DownloadIcon from "@mui/icons-material/Download";
import UploadFileIcon from "@mui/icons-material/UploadFile";
import Alert from "@mui/material/Alert";
import Avatar from "@mui/material/Avatar";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import Typography from "@mui/material/Typography";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { UNMAPPED_AGENCY } from "@turnout/domain";
import { useState } from "react";
import { useConfirmation } from "../../../ui/confirmation";
import { safeLogoPath } from "../../../ui/safe-logo-path";
import { AdminList } from "../data-view/admin-list";
import type { Column } from "../data-view/data-table";
import { NoticeAlert } from "../data-view/list-dialog";
import { type AdminAgency, agenciesApi } from "./agencies-api";
import { AgencyCapcodesDialog } from "./agency-capcodes-dialog";
import { AgencyFormDialog } from "./agency-form-dialog";
import { AgencyLogoDialog } from "./agency-logo-dialog";
import { AgencyUnitsDialog } from "./agency-units-dialog";
import { CapcodeImportDialog } from "./capcode-import-dialog";
import { errorText } from "./error-text";
import { agenciesQueryOptions, agencyAdminKeys } from "./queries";
import { UnmappedCapcodes } from "./unmapped-capcodes";

/** The name the export is saved under, as the server's attachment names it. */
export const EXPORT_FILE_NAME = "capcodes.csv";

/** Hands the CSV to the browser as a download (the export needs the bearer token, so no plain link). */
function saveCsv(text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv" }));
  const link = document.createElement("a");
  link.href = url;
  link.download = EXPORT_FILE_NAME;
  document.body.append(link);
  link.click();
  link.remove();
  URL.revokeObjectURL(url);
}

function AgencyLogo({ agency }: { agency: AdminAgency }) {
  const logo = safeLogoPath(agency.logo_path);
  return (
    <Avatar src={logo ?? undefined} alt={logo ? `Logo of ${agency.name}` : undefined} variant="rounded">
      {agency.code.slice(0, 3)}
    </Avatar>
  );
}

const AGENCY_COLUMNS: Column<AdminAgency>[] = [
  { header: "Logo", cell: (agency) => <AgencyLogo agency={agency} /> },
  {
    header: "Name",
    cell: (agency) => (
      <>
        <Typography sx={{ fontWeight: 600 }}>{agency.name}</Typography>
        {agency.description ? (
          <Typography variant="body2" color="text.secondary">
            {agency.description}
          </Typography>
        ) : null}
      </>
    ),
  },
  { header: "Code", cell: (agency) => agency.code },
  { header: "Capcodes", cell: (agency) => agency.capcode_count ?? 0, align: "right" },
  { header: "Users", cell: (agency) => agency.user_count ?? 0, align: "right" },
];

/**
 * The Agencies tab of the admin console: agencies with their logos, capcodes and units (brigades,
 * SES units, groups), the capcodes no agency has yet, and PagerMon's capcode CSV in (with a dry-run
 * preview) and out.
 */
export function AgenciesTab() {
  const queryClient = useQueryClient();
  const agencies = useQuery(agenciesQueryOptions());
  const [formOpen, setFormOpen] = useState(false);
  const [editing, setEditing] = useState<AdminAgency | null>(null);
  const [capcodesOf, setCapcodesOf] = useState<AdminAgency | null>(null);
  const [unitsOf, setUnitsOf] = useState<AdminAgency | null>(null);
  const [logoOf, setLogoOf] = useState<AdminAgency | null>(null);
  const confirm = useConfirmation();
  const [importOpen, setImportOpen] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  const remove = useMutation({
    mutationFn: (agency: AdminAgency) => agenciesApi.deleteAgency(agency.id),
    onSuccess: (message) => {
      confirm.close();
      setNotice(message);
      void queryClient.invalidateQueries({ queryKey: agencyAdminKeys.all });
    },
  });
  const exportCsv = useMutation({ mutationFn: () => agenciesApi.exportCapcodes(), onSuccess: saveCsv });

  // Editing, logo and capcode dialogs show the latest copy once a change reloads the list.
  const fresh = (agency: AdminAgency | null) =>
    agency ? (agencies.data?.find((candidate) => candidate.id === agency.id) ?? agency) : null;

  return (
    <Box sx={{ display: "flex", flexDirection: "column", gap: 3 }}>
      <Box component="section" aria-labelledby="agencies-heading">
        <Box sx={{ display: "flex", flexWrap: "wrap", alignItems: "center", gap: 1, mb: 1 }}>
          <Typography id="agencies-heading" component="h2" variant="h6" sx={{ flexGrow: 1 }}>
            Agencies
          </Typography>
          <Button
            variant="contained"
            startIcon={<AddIcon aria-hidden="true" />}
            onClick={() => {
              setEditing(null);
              setFormOpen(true);
            }}
          >
            New Agency
          </Button>
          <Button
            variant="outlined"
            startIcon={<UploadFileIcon aria-hidden="true" />}
            onClick={() => setImportOpen(true)}
          >
            Import CSV
          </Button>
          <Button
            variant="outlined"
            startIcon={<DownloadIcon aria-hidden="true" />}
            onClick={() => exportCsv.mutate()}
            disabled={exportCsv.isPending}
          >
            Export CSV
          </Button>
        </Box>
        <NoticeAlert notice={notice} onClose={() => setNotice(null)} sx={{ mb: 1 }} />
        {exportCsv.isError ? (
          <Alert severity="error" role="alert" onClose={() => exportCsv.reset()} sx={{ mb: 1 }}>
            {`Export failed: ${errorText(exportCsv.error)}`}
          </Alert>
        ) : null}
        <AdminList
          query={agencies}
          loadingLabel="Loading agencies"
          spinnerSize={28}
          errorText={errorText}
          select={(data) => data.filter((agency) => agency.code !== UNMAPPED_AGENCY.code)}
          isEmpty={() => false}
          outlined
          label="Agencies"
          rowKey={(agency) => agency.id}
          columns={AGENCY_COLUMNS}
          actionsAlign="right"
          actions={[
            {
              label: "Capcodes",
              ariaLabel: (agency) => `Capcodes of ${agency.name}`,
              onClick: setCapcodesOf,
            },
            { label: "Units", ariaLabel: (agency) => `Units of ${agency.name}`, onClick: setUnitsOf },
            {
              label: "Edit",
              ariaLabel: (agency) => `Edit ${agency.name}`,
              onClick: (agency) => {
                setEditing(agency);
                setFormOpen(true);
              },
            },
            { label: "Logo", ariaLabel: (agency) => `Logo of ${agency.name}`, onClick: setLogoOf },
            {
              label: "Delete",
              color: "error",
              ariaLabel: (agency) => `Delete ${agency.name}`,
              onClick: (agency) => {
                remove.reset();
                confirm.ask({
                  title: `Delete ${agency.name}?`,
                  text: "The agency is removed for good. An agency that still has capcodes, users or alerts cannot be deleted.",
                  confirmLabel: "Delete",
                  onConfirm: () => remove.mutate(agency),
                });
              },
            },
          ]}
        />
      </Box>
      <Box component="section" aria-labelledby="unmapped-heading">
        <Typography id="unmapped-heading" component="h2" variant="h6" sx={{ mb: 1 }}>
          Unmapped Capcodes
        </Typography>
        <UnmappedCapcodes />
      </Box>
      <AgencyFormDialog open={formOpen} agency={fresh(editing)} onClose={() => setFormOpen(false)} />
      <AgencyCapcodesDialog agency={fresh(capcodesOf)} onClose={() => setCapcodesOf(null)} />
      <AgencyUnitsDialog agency={fresh(unitsOf)} onClose={() => setUnitsOf(null)} />
      <AgencyLogoDialog agency={fresh(logoOf)} onClose={() => setLogoOf(null)} />
      <CapcodeImportDialog open={importOpen} onClose={() => setImportOpen(false)} />
      {confirm.dialog({ busy: remove.isPending, error: remove.isError ? errorText(remove.error) : null })}
    </Box>
  );
}
