/**
 * A page of the template gallery: the built-in templates that match (gallery order), then the
 * workspace's own (newest first), by offset or by cursor. A cursor names the last item shown: a
 * built-in by its place in the matching list, a custom template by its creation time and id (a
 * keyset, as libs/store's listPage walks), so templates saved between pages are neither skipped
 * nor repeated.
 */
import { afterCursor, cursorPosition, encodeCursor, type Condition, type ScopedStore, type SortKey } from '@crm/store';
import type { CustomTemplateDocument, TemplateDefinition } from '../domain/model';
import { pageBounds, type Paging } from '../domain/paging';
import { customTemplates } from './collections';

const NEWEST_FIRST: SortKey = { field: 'createdAt', direction: 'desc' };
const BUILT_IN = 'builtin:';

export interface GalleryPage {
  /** Matches over every page; null on a cursor page, which counts nothing. */
  total: number | null;
  builtIns: TemplateDefinition[];
  custom: CustomTemplateDocument[];
  nextCursor: string | null;
}

/** `filters` names the list (with the workspace) that a cursor belongs to. */
export async function galleryPage(
  scoped: ScopedStore,
  workspaceId: string,
  builtIn: readonly TemplateDefinition[],
  where: Condition[],
  filters: unknown,
  paging: Paging,
): Promise<GalleryPage> {
  const { offset, limit } = pageBounds(paging.offset ?? 0, paging.limit ?? 0);
  const scope = JSON.stringify([workspaceId, 'templates', filters]);
  const cursorAfter = (builtIns: TemplateDefinition[], custom: CustomTemplateDocument[]): string => {
    const last = custom[custom.length - 1];
    if (last) return encodeCursor(scope, { value: last.createdAt, id: last.id });
    const lastBuiltIn = builtIns[builtIns.length - 1]!;
    return encodeCursor(scope, { value: builtIn.indexOf(lastBuiltIn), id: `${BUILT_IN}${lastBuiltIn.id}` });
  };

  if (paging.cursor === undefined) {
    const builtIns = builtIn.slice(offset, offset + limit);
    const customLimit = limit - builtIns.length;
    // limit 0 would mean "no limit": a page filled by built-ins still reads the custom count, with one item at most.
    const page = await scoped.findPage(customTemplates, {
      where,
      sort: [NEWEST_FIRST],
      offset: Math.max(0, offset - builtIn.length),
      limit: Math.max(1, customLimit),
    });
    const custom = page.items.slice(0, customLimit);
    const total = builtIn.length + page.total;
    const shown = builtIns.length + custom.length;
    return { total, builtIns, custom, nextCursor: shown > 0 && offset + shown < total ? cursorAfter(builtIns, custom) : null };
  }

  const position = cursorPosition(scope, paging.cursor);
  const fromBuiltIn = position.id.startsWith(BUILT_IN);
  const start = fromBuiltIn ? Number(position.value) + 1 : builtIn.length;
  const builtIns = builtIn.slice(start, start + limit);
  const customLimit = limit - builtIns.length;
  const customWhere = fromBuiltIn ? where : [...where, afterCursor(NEWEST_FIRST, position)];
  const found = await scoped.find(customTemplates, { where: customWhere, sort: [NEWEST_FIRST], limit: customLimit + 1 });
  const custom = found.slice(0, customLimit);
  const more = start + builtIns.length < builtIn.length || found.length > customLimit;
  return { total: null, builtIns, custom, nextCursor: more ? cursorAfter(builtIns, custom) : null };
}
