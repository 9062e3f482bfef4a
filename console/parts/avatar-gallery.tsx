import type { PipelineResult } from '../api-types';
import { styleName, type Style } from './style-choices';

/**
 * The archived avatars, style by style. Only archived copies are shown: the provider's own URLs
 * expire, and the console's Content-Security-Policy loads images from the API (or its store) only.
 */
export function AvatarGallery(props: {
  generations: PipelineResult['generations'];
  styles: Style[] | undefined;
  running: boolean;
}) {
  const { generations, styles, running } = props;
  return (
    <section aria-labelledby="gallery-heading">
      <h2 id="gallery-heading">Avatars</h2>
      {generations.length === 0 && (
        <p>{running ? 'Avatars appear here once their styles are collected.' : 'No avatars.'}</p>
      )}
      {generations.map((generation) => {
        const name = styleName(styles, generation.styleId);
        const archived = generation.avatars.filter((avatar) => avatar.archivedUrl);
        const missing = generation.avatars.length - archived.length;
        return (
          <section
            key={generation.styleId}
            aria-labelledby={`gallery-${generation.styleId}`}
            class="gallery-style"
          >
            <h3 id={`gallery-${generation.styleId}`}>
              {name} <span class={`state ${generation.status.toLowerCase()}`}>{generation.status}</span>
            </h3>
            {generation.error && <p class="field-error">{generation.error}</p>}
            <ul class="gallery">
              {archived.map((avatar) => (
                <li key={avatar.avatarId}>
                  <img
                    src={avatar.archivedUrl}
                    alt={`${name} avatar ${avatar.avatarId}`}
                    loading="lazy"
                    width={128}
                    height={128}
                  />
                </li>
              ))}
            </ul>
            {missing > 0 && <p class="hint">{missing} avatar(s) not archived (or erased).</p>}
          </section>
        );
      })}
    </section>
  );
}
