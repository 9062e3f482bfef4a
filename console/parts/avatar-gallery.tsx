import { useRef, useState } from 'preact/hooks';
import { authHeaders, messageOf } from '../api';
import type { PipelineProgress, PipelineResult } from '../api-types';
import { Alert } from './alert';
import { AvatarViewer, type ViewedAvatar } from './avatar-viewer';
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
  archiveKey?: string;
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
 * freshly signed links, and a new `src` would load a shown image again. A new `signedUntil` (the
 * status answer's linksExpireAt, read again before the links expire) lets the fresh links in.
 */
export function useSteadyLinks(gallery: GalleryStyle[], signedUntil?: string): GalleryStyle[] {
  const seen = useRef(new Map<string, string>());
  const batch = useRef(signedUntil);
  if (batch.current !== signedUntil) {
    batch.current = signedUntil;
    seen.current.clear();
  }
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

/** `Soft Watercolor` → `soft-watercolor`: a file name that every system accepts. */
function fileStem(name: string): string {
  return (
    name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-|-$/g, '') || 'avatar'
  );
}

/** The archived copy's own extension (its key ends like the provider's file), else png. */
function extensionOf(avatar: GalleryAvatar): string {
  const match = /\.(png|jpe?g|webp)$/i.exec(avatar.archiveKey ?? '');
  return match?.[1]?.toLowerCase() ?? 'png';
}

/**
 * The archived avatars, style by style, each style as soon as it is done. Only archived copies are
 * shown: the provider's own URLs expire, and the console's Content-Security-Policy loads images
 * from the API (or its store) only. An avatar that failed its checks is never shown as the others:
 * it is listed apart, blurred, with the reasons. A thumbnail opens the style's avatars full size.
 */
export function AvatarGallery(props: {
  gallery: GalleryStyle[];
  styles: Style[] | undefined;
  running: boolean;
  /** The run, for a style's avatars as one zip. */
  workflowId: string;
  /** An image failed to load: its link may have expired, and the page can fetch fresh ones. */
  onBroken?: (key: string) => void;
}) {
  const { gallery, styles, running, workflowId, onBroken } = props;
  const [viewing, setViewing] = useState<{ styleId: number; index: number } | undefined>();
  const [notice, setNotice] = useState('');

  const viewedOf = (generation: GalleryStyle, name: string): ViewedAvatar[] =>
    generation.avatars
      .filter((avatar) => avatar.archivedUrl && avatar.check?.passed !== false)
      .map((avatar, index) => ({
        key: `${generation.styleId}/${avatar.avatarId}`,
        src: avatar.archivedUrl!,
        alt: `${name} avatar ${avatar.avatarId}`,
        fileName: `${fileStem(name)}-${index + 1}.${extensionOf(avatar)}`,
      }));

  const downloadAll = async (styleId: number, name: string) => {
    setNotice('');
    try {
      const path = `/v1/pipelines/${encodeURIComponent(workflowId)}/styles/${styleId}/avatars.zip`;
      // A fetch, not a link: the API wants the bearer token, which a link cannot send.
      const response = await fetch(path, { headers: authHeaders() });
      if (!response.ok) throw new Error(`The API answered ${response.status}`);
      const url = URL.createObjectURL(await response.blob());
      const link = document.createElement('a');
      link.href = url;
      link.download = `${fileStem(name)}.zip`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (err) {
      setNotice(`The avatars of ${name} could not be downloaded: ${messageOf(err)}`);
    }
  };

  const open = viewing && gallery.find((g) => g.styleId === viewing.styleId);
  const openName = open ? styleName(styles, open.styleId) : '';
  const openAvatars = open ? viewedOf(open, openName) : [];

  return (
    <section aria-labelledby="gallery-heading">
      <h2 id="gallery-heading">Avatars</h2>
      {gallery.length === 0 && (
        <p>{running ? 'Avatars appear here as each style is done.' : 'No avatars.'}</p>
      )}
      <Alert>{notice}</Alert>
      {gallery.map((generation) => {
        const name = styleName(styles, generation.styleId);
        const archived = generation.avatars.filter((avatar) => avatar.archivedUrl);
        const missing = generation.avatars.length - archived.length;
        const passed = viewedOf(generation, name);
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
              {passed.map((avatar, index) => (
                <li key={avatar.key}>
                  <button
                    type="button"
                    class="thumbnail"
                    onClick={() => setViewing({ styleId: generation.styleId, index })}
                    aria-haspopup="dialog"
                    title="Open full size"
                  >
                    <img
                      src={avatar.src}
                      alt={avatar.alt}
                      loading="lazy"
                      width={128}
                      height={128}
                      onError={() => onBroken?.(avatar.key)}
                    />
                  </button>
                </li>
              ))}
            </ul>
            {passed.length > 0 && (
              <div class="actions">
                <button type="button" onClick={() => void downloadAll(generation.styleId, name)}>
                  Download all {passed.length} of {name} (zip)
                </button>
              </div>
            )}
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
                          onError={() => onBroken?.(`${generation.styleId}/${avatar.avatarId}`)}
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
      {viewing && openAvatars.length > 0 && (
        <AvatarViewer
          title={`${openName} avatars`}
          avatars={openAvatars}
          index={Math.min(viewing.index, openAvatars.length - 1)}
          onIndex={(index) => setViewing({ ...viewing, index })}
          onClose={() => setViewing(undefined)}
          {...(onBroken ? { onBroken } : {})}
        />
      )}
    </section>
  );
}
