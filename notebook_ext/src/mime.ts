/**
 * The MIME renderer extension for application/vnd.minipaddle.trace+json (JupyterLab's
 * `jupyterlab.mimeExtension`): each notebook output holding a trace becomes a debugger.
 *
 * It is `safe`: it runs nothing from the document, and the fallback HTML goes through
 * JupyterLab's sanitizer, so untrusted (reopened) notebooks render it too -- a saved notebook
 * reopens fully navigable.
 */
import { IRenderMime } from '@jupyterlab/rendermime-interfaces';
import { Widget } from '@lumino/widgets';
import { MIME_TYPE } from './schema';
import { renderTrace } from './render';
import { TraceView } from './trace_view';

export class TraceRenderer extends Widget implements IRenderMime.IRenderer {
  private view: TraceView | null = null;
  private sanitizer: IRenderMime.ISanitizer;

  constructor(options: IRenderMime.IRendererOptions) {
    super();
    this.sanitizer = options.sanitizer;
    this.addClass('mp-output');
  }

  renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    this.view?.dispose();
    const html = model.data['text/html'];
    const text = typeof html === 'string' ? html : Array.isArray(html) ? html.join('') : null;
    // a live update (the traced loop still runs) shows the newest step; the final output starts at step 1
    const meta = model.metadata?.[MIME_TYPE] as { live?: boolean } | undefined;
    const live = meta !== null && typeof meta === 'object' && meta.live === true;
    const rendered = renderTrace(model.data[MIME_TYPE], text === null ? null : this.sanitizer.sanitize(text),
      live ? { start: 'last', live: true } : {});
    this.node.replaceChildren(rendered.node);
    return rendered.ready.then(() => {
      this.view = rendered.view;
    });
  }

  dispose(): void {
    this.view?.dispose();
    this.view = null;
    super.dispose();
  }
}

export const rendererFactory: IRenderMime.IRendererFactory = {
  safe: true,
  mimeTypes: [MIME_TYPE],
  createRenderer: options => new TraceRenderer(options)
};

const extension: IRenderMime.IExtension = {
  id: 'minipaddle:trace-renderer',
  description: 'Renders minipaddle trace documents as a step-through graph debugger.',
  rendererFactory,
  rank: 0, // before text/html: the richest view of the bundle
  dataType: 'json'
};

export default extension;
