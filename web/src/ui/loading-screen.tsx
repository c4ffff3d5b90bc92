import { PRODUCT_NAME } from "@turnout/domain";
import { Spinner } from "./kit/kit";
import "./screens.css";

/** Full-page "Loading Turnout" state shown while the app starts or a lazy page loads. */
export function LoadingScreen({ label = `Loading ${PRODUCT_NAME}` }: { label?: string }) {
  return (
    <div role="status" aria-live="polite" className="centred-page">
      <Spinner />
      <p className="kit-text-h6">{label}</p>
    </div>
  );
}
