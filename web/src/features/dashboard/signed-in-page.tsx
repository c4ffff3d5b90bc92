import LogoutIcon from "@mui/icons-material/Logout";
import AppBar from "@mui/material/AppBar";
import Avatar from "@mui/material/Avatar";
import Box from "@mui/material/Box";
import Container from "@mui/material/Container";
import Divider from "@mui/material/Divider";
import IconButton from "@mui/material/IconButton";
import ListItemIcon from "@mui/material/ListItemIcon";
import Menu from "@mui/material/Menu";
import MenuItem from "@mui/material/MenuItem";
import Toolbar from "@mui/material/Toolbar";
import Typography from "@mui/material/Typography";
import { PRODUCT_NAME } from "@turnout/domain";
import { useId, useState } from "react";
import type { SessionAgency, SessionUser } from "../../api/types";

function initialsOf(user: SessionUser): string {
  return `${user.first_name.charAt(0)}${user.last_name.charAt(0)}`.toUpperCase() || "?";
}

/**
 * The signed-in page until the alert dashboard exists: who is signed in, and 'Sign out'.
 * It shows no alerts rather than made-up ones.
 */
export function SignedInPage({
  user,
  agency,
  onSignOut,
}: {
  user: SessionUser;
  agency: SessionAgency | null;
  onSignOut: () => Promise<void>;
}) {
  const [menuAnchor, setMenuAnchor] = useState<HTMLElement | null>(null);
  const [signingOut, setSigningOut] = useState(false);
  const menuId = useId();
  const fullName = `${user.first_name} ${user.last_name}`.trim();

  const handleSignOut = async () => {
    setMenuAnchor(null);
    setSigningOut(true);
    await onSignOut();
  };

  return (
    <Box sx={{ minHeight: "100dvh", display: "flex", flexDirection: "column" }}>
      <AppBar position="sticky" color="primary">
        <Toolbar sx={{ gap: 1 }}>
          <Typography variant="h6" component="p" sx={{ flexGrow: 1, fontWeight: 700 }}>
            {PRODUCT_NAME}
          </Typography>
          <Box sx={{ textAlign: "right", display: { xs: "none", sm: "block" } }}>
            <Typography variant="body2" component="p" sx={{ fontWeight: 600 }}>
              {fullName}
            </Typography>
            <Typography variant="caption" component="p">
              {user.phone}
            </Typography>
          </Box>
          <IconButton
            aria-label={`User menu for ${fullName}`}
            aria-haspopup="menu"
            aria-controls={menuAnchor ? menuId : undefined}
            aria-expanded={menuAnchor ? "true" : undefined}
            onClick={(event) => setMenuAnchor(event.currentTarget)}
            color="inherit"
          >
            <Avatar sx={{ width: 36, height: 36, bgcolor: "secondary.main" }}>{initialsOf(user)}</Avatar>
          </IconButton>
        </Toolbar>
      </AppBar>
      <Menu id={menuId} anchorEl={menuAnchor} open={menuAnchor !== null} onClose={() => setMenuAnchor(null)}>
        <Box sx={{ px: 2, py: 1 }}>
          <Typography sx={{ fontWeight: 600 }}>{fullName}</Typography>
          <Typography variant="body2" color="text.secondary">
            {user.phone}
          </Typography>
        </Box>
        <Divider />
        <MenuItem onClick={handleSignOut} disabled={signingOut}>
          <ListItemIcon>
            <LogoutIcon fontSize="small" />
          </ListItemIcon>
          Sign out
        </MenuItem>
      </Menu>
      <Container component="main" maxWidth="md" sx={{ py: 4 }}>
        <Typography variant="h5" component="h1" gutterBottom>
          Signed in
        </Typography>
        <Typography color="text.secondary">
          {fullName}
          {agency ? ` · ${agency.name}` : ""}
        </Typography>
      </Container>
    </Box>
  );
}
