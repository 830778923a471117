/** minipaddle's JupyterLab extension: the pure modules, re-exported for tests and other front ends. */
export * from './schema';
export * from './trace_index';
export * from './steps';
export * from './views';
export * from './dot';
export { renderTrace } from './render';
export { TraceView } from './trace_view';
export * from './program_graph';
export * from './profile_types';
export { ProgramView } from './program_view';
export { ProfileView, renderProfileView } from './profile_view';
