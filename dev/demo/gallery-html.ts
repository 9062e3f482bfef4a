import type { PipelineResult } from '@avatar-pipeline/client/contracts/pipeline-state';

export interface GalleryImage {
  avatarId: number;
  /** Path relative to the gallery page. */
  file: string;
  width?: number;
  height?: number;
}

export interface GallerySection {
  styleId: number;
  styleName: string;
  status: string;
  error?: string;
  images: GalleryImage[];
}

export interface GalleryPage {
  result: PipelineResult;
  sections: GallerySection[];
  /** The run's page in the Temporal Web UI. */
  temporalUiLink: string;
  namespace: string;
  generatedAt: Date;
  providerUrl: string;
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

const STYLES = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { margin: 2rem auto; max-width: 72rem; padding: 0 1rem; }
  header p { margin: .25rem 0; }
  code { font-size: .95em; }
  section { margin-top: 2rem; }
  h2 small { font-weight: normal; color: GrayText; }
  .grid { display: grid; grid-template-columns: repeat(auto-fill, minmax(160px, 1fr)); gap: .75rem; }
  figure { margin: 0; }
  figure img { width: 100%; height: auto; border-radius: 8px; display: block; image-rendering: pixelated; }
  figcaption { font-size: .8rem; color: GrayText; }
  .error { color: #b00020; }
`;

/** The gallery: avatars grouped by style, with the run's id and a link to it in the Temporal UI. */
export function renderGalleryHtml(page: GalleryPage): string {
  const { result } = page;
  const total = page.sections.reduce((sum, s) => sum + s.images.length, 0);
  const sections = page.sections.map((section) => {
    const figures = section.images.map(
      (image) =>
        `<figure><img class="avatar" src="${escapeHtml(image.file)}" alt="${escapeHtml(`${section.styleName} avatar ${image.avatarId}`)}"${image.width ? ` width="${image.width}"` : ''}${image.height ? ` height="${image.height}"` : ''} data-style-id="${section.styleId}" data-avatar-id="${image.avatarId}"><figcaption>avatar ${image.avatarId}</figcaption></figure>`,
    );
    return [
      `<section id="style-${section.styleId}" data-style-id="${section.styleId}">`,
      `<h2>${escapeHtml(section.styleName)} <small>style ${section.styleId} · ${escapeHtml(section.status)} · ${section.images.length} avatars</small></h2>`,
      section.error ? `<p class="error">${escapeHtml(section.error)}</p>` : '',
      `<div class="grid">${figures.join('\n')}</div>`,
      '</section>',
    ]
      .filter(Boolean)
      .join('\n');
  });
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Avatars · ${escapeHtml(result.workflowId)}</title>
<style>${STYLES}</style>
</head>
<body>
<header>
<h1>Avatar gallery</h1>
<p>Workflow id: <code id="workflow-id">${escapeHtml(result.workflowId)}</code> · model ${result.modelId} · ${escapeHtml(result.status)} · ${total} avatars in ${page.sections.length} styles</p>
<p><a id="temporal-ui-link" href="${escapeHtml(page.temporalUiLink)}">Open this run in the Temporal UI</a> (namespace <code>${escapeHtml(page.namespace)}</code>)</p>
<p><small>Made ${escapeHtml(page.generatedAt.toISOString())} from the provider at ${escapeHtml(page.providerUrl)}; the images are saved beside this page, so it works offline.</small></p>
</header>
<main>
${sections.join('\n')}
</main>
</body>
</html>
`;
}
