import type { ReactNode } from "react";
import type { Alert } from "../api/alerts";
import { JobDetailDialog } from "../features/alerts/job-detail-dialog";
import { MapView } from "../features/map/map-view";

/**
 * The map of jobs (issue 34) with the feed's job popup: a tap on a job opens the same view as a card
 * does, with `jobExtra` below it (who is responding). Loaded on demand, so the feed does not carry Leaflet.
 */
export default function MapPage({ jobExtra }: { jobExtra?: (alert: Alert) => ReactNode }) {
  return (
    <MapView
      renderJob={(jobId, onClose) => (
        <JobDetailDialog jobId={jobId} onClose={onClose} renderExtra={jobExtra} />
      )}
    />
  );
}
