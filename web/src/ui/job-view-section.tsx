import Box from "@mui/material/Box";
import Typography from "@mui/material/Typography";
import { type ReactNode, useId } from "react";

/**
 * A part of a job's view (who is responding, which receivers heard it): a section under its own
 * heading, set off from the job's details. `children` may take the heading's id, to label a list by it.
 */
export function JobViewSection({
  title,
  children,
}: {
  title: string;
  children: ReactNode | ((headingId: string) => ReactNode);
}) {
  const headingId = useId();
  return (
    <Box
      component="section"
      aria-labelledby={headingId}
      sx={{ mt: 2, pt: 2, borderTop: 1, borderColor: "divider" }}
    >
      <Typography id={headingId} component="h3" variant="subtitle1" sx={{ fontWeight: 700, mb: 0.5 }}>
        {title}
      </Typography>
      {typeof children === "function" ? children(headingId) : children}
    </Box>
  );
}
