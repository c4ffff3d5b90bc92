// The bundled localities moved below the modules (shared/localities): ingest still reads them here
// until its own imports move (issue 30).
export { addressLocalities, bundledLocalities } from "../../shared/localities/address-localities.js";
