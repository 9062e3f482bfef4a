import { useRef } from 'preact/hooks';
import type { PipelineProgress, PipelineResult } from '../api-types';
import { styleName, type Style } from './style-choices';

/** One style's part of the gallery: from the run's result, or from its progress while it runs. */
export interface GalleryStyle {
  styleId: number;
  status: string;
  error?: string;
  avatars: Array<{ avatarId: number; archivedUrl?: string }>;
}

/** The result's styles, each with its avatars. */
export function galleryOfResult(result: PipelineResult): GalleryStyle[] {
  return result.generations;
}

/** The styles done so far, each with the avatars its progress names (before the run ends). */
export function galleryOfProgress(progress: PipelineProgress | undefined): GalleryStyle[] {
  return (progress?.styles ?? []).flatMap((style) =>
    style.avatars ? [{ styleId: style.styleId, status: 'DONE', avatars: style.avatars }] : [],
  );
}

/**
 * The gallery with the first link seen for each avatar kept: every progress event comes with
 * freshly signed links, and a new `src` would load a shown image again.
 */
export function useSteadyLinks(gallery: GalleryStyle[]): GalleryStyle[] {
  const seen = useRef(new Map<string, string>());
  return gallery.map((style) => ({
    ...style,
    avatars: style.avatars.map((avatar) => {
      if (avatar.archivedUrl === undefined) return avatar;
      const key = `${style.styleId}/${avatar.avatarId}`;
      const first = seen.current.get(key);
      if (first !== undefined) return { ...avatar, archivedUrl: first };
      seen.current.set(key, avatar.archivedUrl);
      return avatar;
    }),
  }));
}

/**
 * The archived avatars, style by style, each style as soon as it is done. Only archived copies are
 * shown: the provider's own URLs expire, and the console's Content-Security-Policy loads images
 * from the API (or its store) only.
 */
export function AvatarGallery(props: {
  gallery: GalleryStyle[];
  styles: Style[] | undefined;
  running: boolean;
}) {
  const { gallery, styles, running } = props;
  return (
    <section aria-labelledby="gallery-heading">
      <h2 id="gallery-heading">Avatars</h2>
      {gallery.length === 0 && (
        <p>{running ? 'Avatars appear here as each style is done.' : 'No avatars.'}</p>
      )}
      {gallery.map((generation) => {
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
