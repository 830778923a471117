/**
 * The extension's Profile view: the `profile` section of a trace document drawn as the op table and a timeline.
 * (First cut: the entry point other views mount; the table and timeline follow.)
 */
import type { ProfileSection } from './profile_types';

export type { ProfileSection } from './profile_types';

/** Draw `profile` into `host`; a click on a span that names a graph node calls `selectNode(nodeId)`. */
export function renderProfileView(host: HTMLElement, profile: ProfileSection, selectNode: (nodeId: string) => void): void {
  host.textContent = '';
  const root = document.createElement('div');
  root.className = 'mp-profile-view';
  root.dataset.testid = 'mp-profile-view';
  root.textContent = `${profile.ops.length} ops, ${profile.spans.length} spans`;
  root.addEventListener('mp-select-node', (e: Event) => selectNode((e as CustomEvent<string>).detail));
  host.appendChild(root);
}
