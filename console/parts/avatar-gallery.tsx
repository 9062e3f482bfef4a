import { useRef } from 'preact/hooks';
import type { PipelineProgress, PipelineResult } from '../api-types';
import { styleName, type Style } from './style-choices';

/** One style's part of the gallery: from the run's result, or from its progress while it runs. */
export interface GalleryStyle {
  styleId: number;
  status: string;
  error?: string;
  /** Orders made for the style when the avatar checks ordered it again; absent without checks. */
  attempts?: number;
  avatars: GalleryAvatar[];
}

export interface GalleryAvatar {
  avatarId: number;
  archivedUrl?: string;
  check?: { passed: boolean; reasons: string[]; notChecked?: string[] };
}

/** The result's styles, each with its avatars. */
export function galleryOfResult(result: PipelineResult): GalleryStyle[] {
  return result.generations;
}

/** The styles done so far, each with the avatars its progress names (before the run ends). */
export function galleryOfProgress(progress: PipelineProgress | undefined): GalleryStyle[] {
  return (progress?.styles ?? []).flatMap((style) =>
    style.avatars
      ? [
          {
            styleId: style.styleId,
            // A style whose avatars all failed their checks ends failed, with its avatars.
            status: style.stage === 'failed' ? 'ERROR' : 'DONE',
            ...(style.error !== undefined ? { error: style.error } : {}),
            ...(style.attempt !== undefined ? { attempts: style.attempt } : {}),
            avatars: style.avatars,
          },
        ]
      : [],
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
 * from the API (or its store) only. An avatar that failed its checks is never shown as the others:
 * it is listed apart, blurred, with the reasons.
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
        const passed = archived.filter((avatar) => avatar.check?.passed !== false);
        const failed = archived.filter((avatar) => avatar.check?.passed === false);
        const unchecked = new Set(archived.flatMap((avatar) => avatar.check?.notChecked ?? []));
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
            {generation.attempts !== undefined && generation.attempts > 1 && (
              <p class="hint">
                Ordered {generation.attempts} times: the avatars of the earlier orders failed their checks.
              </p>
            )}
            <ul class="gallery">
              {passed.map((avatar) => (
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
            {failed.length > 0 && (
              <>
                <h4>Failed their checks</h4>
                <ul class="gallery failed-checks">
                  {failed.map((avatar) => (
                    <li key={avatar.avatarId}>
                      <figure>
                        <img
                          src={avatar.archivedUrl}
                          alt={`${name} avatar ${avatar.avatarId}, failed its checks`}
                          loading="lazy"
                          width={128}
                          height={128}
                        />
                        <figcaption>{avatar.check?.reasons.join('; ')}</figcaption>
                      </figure>
                    </li>
                  ))}
                </ul>
              </>
            )}
            {[...unchecked].map((reason) => (
              <p key={reason} class="hint">
                Not checked: {reason}.
              </p>
            ))}
            {missing > 0 && <p class="hint">{missing} avatar(s) not archived (or erased).</p>}
          </section>
        );
      })}
    </section>
  );
}
