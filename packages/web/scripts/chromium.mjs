// The flags every headless Chromium of this repository runs with live in the test kit (packages/test-kit/src/
// chromium.ts), so the test suites take them from there; the screenshots and bench/web take them from here.
export { CHROMIUM_ARGS, CHROMIUM_PATH } from "@notify/test-kit/chromium";
