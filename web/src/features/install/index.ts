export { InstallBanner } from "./install-banner";
export { startInstallPromptCapture } from "./install-prompt";
