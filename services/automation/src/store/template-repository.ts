/** Templates: a workspace's own (custom_templates) and the install counts of the built-in ones (gallery_installs). */
import type { Condition, DocumentStore } from '@crm/store';
import type { CustomTemplateDocument, TemplateDefinition } from '../domain/model';
import type { Paging } from '../domain/paging';
import { customTemplates, galleryInstalls } from './collections';
import { galleryPage, type GalleryPage } from './template-gallery-page';

export type { GalleryPage } from './template-gallery-page';

/** What a list of templates is narrowed to; `search` (trimmed, non-empty) is looked for in the name and description. */
export interface TemplateFilter {
  category?: string;
  trigger?: string;
  search?: string;
}

export class TemplateRepository {
  constructor(private readonly store: DocumentStore) {}

  async insert(template: CustomTemplateDocument): Promise<void> {
    await this.store.forWorkspace(template.workspaceId).insert(customTemplates, template);
  }

  get(workspaceId: string, id: string): Promise<CustomTemplateDocument | null> {
    return this.store.forWorkspace(workspaceId).get(customTemplates, id);
  }

  /**
   * A page of the gallery: `builtIn` (the built-in templates that match, gallery order), then the
   * workspace's custom templates that match `filter`, newest first (template-gallery-page.ts).
   * `filters` names the list that a cursor belongs to.
   */
  galleryPage(
    workspaceId: string,
    builtIn: readonly TemplateDefinition[],
    filter: TemplateFilter,
    filters: unknown,
    paging: Paging,
  ): Promise<GalleryPage> {
    const where: Condition[] = [];
    if (filter.category) where.push({ field: 'category', op: 'eq', value: filter.category });
    if (filter.trigger) where.push({ field: 'trigger', op: 'eq', value: filter.trigger });
    if (filter.search) {
      where.push({
        or: [
          [{ field: 'name', op: 'contains_text', value: filter.search }],
          [{ field: 'description', op: 'contains_text', value: filter.search }],
        ],
      });
    }
    return galleryPage(this.store.forWorkspace(workspaceId), workspaceId, builtIn, where, filters, paging);
  }

  /** How many times each of these built-in templates was installed (0 when never). */
  async builtInInstallCounts(ids: string[]): Promise<Map<string, number>> {
    const counts = await this.store.global().getMany(galleryInstalls, ids);
    return new Map(counts.map((c) => [c.id, c.installCount]));
  }

  async builtInInstallCount(id: string): Promise<number> {
    const count = await this.store.global().get(galleryInstalls, id);
    return count?.installCount ?? 0;
  }

  /** One more install of the built-in template, counted atomically. */
  async countBuiltInInstall(id: string): Promise<void> {
    await this.store.global().upsert(galleryInstalls, { id, installCount: 1 }, { inc: { installCount: 1 } });
  }

  /** One more install of the workspace's template, counted atomically. */
  async countCustomInstall(workspaceId: string, id: string): Promise<void> {
    await this.store.forWorkspace(workspaceId).update(customTemplates, id, { inc: { installCount: 1 } });
  }
}
