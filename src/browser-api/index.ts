export type { BrowserApiOptions } from './client.js';
export { BrowserApi } from './client.js';
export type { WaitForAsyncOptions } from './resources/async-sessions.js';
export { AsyncSessionError } from './resources/async-sessions.js';
export { Configurations } from './resources/configurations.js';
export { Locations } from './resources/locations.js';
export { DEFAULT_PAGE_SIZE, LocationsPage } from './resources/locations-page.js';
export { Profiles } from './resources/profiles.js';
export { ProxyResource } from './resources/proxy.js';
export type {
  DownloadedRecording,
  DownloadOptions,
  DownloadProgress,
  StreamedRecording,
} from './resources/recording-download.js';
export type {
  DownloadWhenPublishedOptions,
  WaitForPublishedOptions,
} from './resources/recordings.js';
export { Recordings } from './resources/recordings.js';
export { Sessions } from './resources/sessions.js';
export { Tools } from './resources/tools.js';
export type {
  ConfigurationParams,
  ValidationIssue,
  ValidationResult,
} from './schemas/configurations.js';
export {
  ConfigurationParamsSchema,
  ValidationIssueSchema,
  ValidationResultSchema,
} from './schemas/configurations.js';
export type {
  CityParams,
  CountryParams,
  IspParams,
  LocationItem,
  LocationLevel,
  RegionParams,
  ZipCodeParams,
} from './schemas/locations.js';
export { LOCATION_LEVELS, LocationItemSchema, LocationParamsSchemas } from './schemas/locations.js';
export type {
  Profile,
  ProfileCreateParams,
  ProfileUpdateParams,
} from './schemas/profiles.js';
export {
  ProfileCreateParamsSchema,
  ProfileSchema,
  ProfileUpdateParamsSchema,
} from './schemas/profiles.js';
export type { ProxyOptionItem, ProxyOptions } from './schemas/proxy.js';
export { ProxyOptionItemSchema, ProxyOptionsSchema } from './schemas/proxy.js';
export type { Recording } from './schemas/recordings.js';
export { RecordingSchema } from './schemas/recordings.js';
export type {
  AsyncSessionCreated,
  AsyncSessionRequest,
  Page,
  Session,
  SessionConfig,
  SessionConnection,
  SessionCreated,
  SessionCreateParams,
  SessionEnded,
  SessionListParams,
  SessionSummary,
} from './schemas/sessions.js';
export {
  AsyncSessionCreatedSchema,
  AsyncSessionRequestSchema,
  PageSchema,
  SessionConfigSchema,
  SessionConnectionSchema,
  SessionCreatedSchema,
  SessionCreateParamsSchema,
  SessionEndedSchema,
  SessionListParamsSchema,
  SessionSchema,
  SessionSummarySchema,
} from './schemas/sessions.js';
export type {
  ActionOk,
  ClickParams,
  ExecuteCodeParams,
  NavigateParams,
  ScrollParams,
  SessionParams,
  TypeParams,
} from './schemas/tools.js';
export {
  ActionOkSchema,
  ClickParamsSchema,
  ContentResultSchema,
  ExecuteCodeParamsSchema,
  ExecuteCodeResultSchema,
  NavigateParamsSchema,
  PdfResultSchema,
  ScreenshotResultSchema,
  ScrollParamsSchema,
  SessionParamsSchema,
  TypeParamsSchema,
} from './schemas/tools.js';
export type {
  ConnectionType,
  FilterMode,
  LocationConnectionType,
  Protocol,
  SessionStatus,
  SessionStatusFilter,
  SessionType,
} from './schemas/vocabulary.js';
export {
  ConnectionTypeSchema,
  FILTER_MODES_FOR_QUALITY_FLAG,
  FilterModeSchema,
  LocationConnectionTypeSchema,
  ProtocolSchema,
  SessionStatusFilterSchema,
  SessionStatusSchema,
  SessionTypeSchema,
} from './schemas/vocabulary.js';
