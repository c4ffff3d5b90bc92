// The member's recognised devices (issue 27).

export { MyDevicesDialog } from "./my-devices-dialog";
