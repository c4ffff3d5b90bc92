// Brigades and units as members choose them (issue 26): at registration and in their settings.

export { MyUnitsDialog } from "./my-units-dialog";
