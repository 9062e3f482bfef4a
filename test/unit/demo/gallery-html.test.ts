import { escapeHtml, renderGalleryHtml } from '../../../dev/demo/gallery-html';

describe('renderGalleryHtml', () => {
  const html = renderGalleryHtml({
    result: {
      workflowId: 'avatar-pipeline-<1>',
      modelId: 1001,
      status: 'PARTIAL',
      generations: [],
    },
    sections: [
      {
        styleId: 3,
        styleName: 'Water & "color"',
        status: 'DONE',
        images: [
          { avatarId: 11, file: 'images/3-11.png', width: 160, height: 160 },
          { avatarId: 12, file: 'images/3-12.png' },
        ],
      },
      { styleId: 7, styleName: 'Film Noir', status: 'ERROR', error: 'provider <said> no', images: [] },
    ],
    temporalUiLink: 'http://127.0.0.1:8233/namespaces/default/workflows/avatar-pipeline-%3C1%3E',
    namespace: 'default',
    generatedAt: new Date('2026-01-02T03:04:05Z'),
    providerUrl: 'http://127.0.0.1:4010',
  });

  it('groups avatars by style, one section each, with every image referenced', () => {
    expect(html.match(/<section /g)).toHaveLength(2);
    expect(html.match(/<img /g)).toHaveLength(2);
    expect(html).toContain('src="images/3-11.png"');
    expect(html).toContain('width="160" height="160"');
    expect(html).toContain('data-style-id="7"');
    expect(html).toContain('<p class="error">provider &lt;said&gt; no</p>');
  });

  it('shows the workflow id and links to the run in the Temporal UI, all escaped', () => {
    expect(html).toContain('<code id="workflow-id">avatar-pipeline-&lt;1&gt;</code>');
    expect(html).toContain(
      '<a id="temporal-ui-link" href="http://127.0.0.1:8233/namespaces/default/workflows/avatar-pipeline-%3C1%3E">',
    );
    expect(html).toContain('Water &amp; &quot;color&quot;');
    expect(html).not.toContain('<1>');
    expect(html).toContain('2 avatars in 2 styles');
  });

  it('escapes the five HTML-special characters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });
});
