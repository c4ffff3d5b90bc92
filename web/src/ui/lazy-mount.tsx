import { type ReactNode, Suspense, useState } from "react";
import { PartErrorBoundary } from "./load-failure";

/**
 * Mounts `children` (a dialog or notice, often made with React.lazy) from the first time `when` is true,
 * and keeps it mounted: its code loads when first needed (issue 31: nothing the feed does not show on
 * first paint is in its critical path), a closed MUI Dialog or Snackbar costs the first render nothing
 * (closed, they still run their hooks), and once shown it closes with its transition and opens again
 * at once. A part that fails to load leaves the screen under it working (PartErrorBoundary).
 */
export function LazyMount({ when, children }: { when: boolean; children: ReactNode }) {
  const [wanted, setWanted] = useState(when);
  // Adjusting own state while rendering (React's documented pattern): no extra commit.
  if (when && !wanted) setWanted(true);
  if (!wanted && !when) return null;
  return (
    <PartErrorBoundary>
      <Suspense fallback={null}>{children}</Suspense>
    </PartErrorBoundary>
  );
}
