// What the dashboard uses of the alarm while the app is open (issue 26).

export { AlarmMutedButton, AlarmNotices } from "./alarm-notices";
export { AlarmSettingsDialog } from "./alarm-settings-dialog";
export { type AlarmArrivals, type AlarmControls, useAlarm } from "./use-alarm";
