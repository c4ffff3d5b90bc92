// Brigades and units as members choose them (issue 26): at registration and in their settings.

export { MyUnitsDialog } from "./my-units-dialog";
export { UnitChecklist } from "./unit-checklist";
export { type OfferedUnit, type Place, unitsApi } from "./units-api";
