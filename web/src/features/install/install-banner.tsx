import CloseIcon from "@mui/icons-material/Close";
import Box from "@mui/material/Box";
import Button from "@mui/material/Button";
import IconButton from "@mui/material/IconButton";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { PRODUCT_NAME } from "@turnout/domain";
import { useId } from "react";
import type { SessionUser } from "../../api/types";
import { type InstallHelp, useInstallBanner } from "./use-install-banner";

const HELP_TEXT: Record<Exclude<InstallHelp, null>, string> = {
  ios: "To install on iPhone or iPad: tap the Share button, then 'Add to Home Screen'.",
  "browser-menu":
    "To install: open your browser's menu and choose 'Install app' or 'Add to Home screen'. Not every browser offers it.",
};

/**
 * 'Install Turnout App' with 'Remind Later', 'Install' and a never-remind dismiss (SPEC 2 and 4).
 * Renders nothing for a signed-out visitor, inside the installed app, after never-remind or
 * installing, within 48 h of Remind Later, and after a dismissal earlier in this browser session.
 */
export function InstallBanner({ user }: { user: SessionUser | null | undefined }) {
  const banner = useInstallBanner(Boolean(user));
  const titleId = useId();
  if (!banner.visible) return null;

  return (
    <Paper
      component="section"
      aria-labelledby={titleId}
      variant="outlined"
      sx={{
        p: 1.5,
        display: "flex",
        flexWrap: "wrap",
        alignItems: "center",
        columnGap: 1.5,
        rowGap: 1,
        borderColor: "primary.main",
      }}
    >
      <Box component="img" src="/icon.svg" alt="" width={40} height={40} sx={{ flexShrink: 0 }} />
      <Box sx={{ flex: "1 1 12rem", minWidth: 0 }}>
        <Typography id={titleId} component="p" variant="subtitle1" sx={{ fontWeight: 700 }}>
          Install {PRODUCT_NAME} App
        </Typography>
        <Typography variant="body2" color="text.secondary">
          Open alerts straight from your home screen, even with a poor connection.
        </Typography>
        {banner.help && (
          <Typography variant="body2" role="status" sx={{ mt: 0.5 }}>
            {HELP_TEXT[banner.help]}
          </Typography>
        )}
      </Box>
      <Stack direction="row" spacing={1} sx={{ alignItems: "center", ml: "auto" }}>
        <Button onClick={banner.remindLater}>Remind Later</Button>
        <Button variant="contained" onClick={() => void banner.install()}>
          Install
        </Button>
        <IconButton aria-label="Don't remind me again" onClick={banner.neverRemind}>
          <CloseIcon />
        </IconButton>
      </Stack>
    </Paper>
  );
}
