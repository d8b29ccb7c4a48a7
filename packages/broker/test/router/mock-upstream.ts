/**
 * The model mock now lives in the test kit (@notify/test-kit, model-mock.ts); these names stay for the suites in
 * test/ui that still import them from here. New code imports ModelMock / startModelMock from the kit.
 */
import { type MockWire, ModelMock, startModelMock } from "@notify/test-kit";

export { type MockWire, ModelMock as MockUpstream };
export const startMock = (wire: MockWire): Promise<ModelMock> => startModelMock(wire);
