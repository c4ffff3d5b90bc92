import Box from "@mui/material/Box";
import Container from "@mui/material/Container";
import Paper from "@mui/material/Paper";
import Stack from "@mui/material/Stack";
import Typography from "@mui/material/Typography";
import { PRODUCT_NAME } from "@turnout/domain";
import { type ReactNode, useEffect, useRef } from "react";
import { DeviceCheckNotice } from "./device-check-notice";

/** The id of the subtitle, so the field a screen focuses can be described by it. */
export const AUTH_SUBTITLE_ID = "auth-subtitle";

/**
 * The frame of every signed-out screen. The title is the page's h1; it takes focus when the
 * screen changes so screen-reader users hear where they are.
 */
export function AuthLayout({
  title,
  subtitle,
  focusTitle = false,
  children,
}: {
  title: string;
  subtitle?: ReactNode;
  focusTitle?: boolean;
  children: ReactNode;
}) {
  const titleRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (focusTitle) titleRef.current?.focus();
  }, [focusTitle]);

  return (
    <Box component="main" sx={{ minHeight: "100dvh", display: "flex", alignItems: "center", py: 3 }}>
      <Container maxWidth="xs">
        <Stack spacing={1} sx={{ alignItems: "center", mb: 2 }}>
          <Box component="img" src="/icon.svg" alt="" sx={{ width: 56, height: 56 }} />
          <Typography component="p" variant="h5" sx={{ fontWeight: 700 }}>
            {PRODUCT_NAME}
          </Typography>
        </Stack>
        <Paper sx={{ p: { xs: 2.5, sm: 3 } }} elevation={2}>
          <Typography
            ref={titleRef}
            tabIndex={-1}
            variant="h5"
            component="h1"
            gutterBottom
            sx={{ outline: "none" }}
          >
            {title}
          </Typography>
          {subtitle ? (
            <Typography id={AUTH_SUBTITLE_ID} color="text.secondary" sx={{ mb: 2 }}>
              {subtitle}
            </Typography>
          ) : null}
          <DeviceCheckNotice />
          {children}
        </Paper>
      </Container>
    </Box>
  );
}
