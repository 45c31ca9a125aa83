// The catalog as a tree to choose from: the contract's sections, each with its requirements (ID, level, statement),
// filtered by text, level and check kind. A ticked section is `--section N`, a ticked requirement `--requirement ID`
// (the kit takes their union); nothing ticked is the whole suite.
import { byId, h } from './dom.ts';

export interface CatalogRequirement {
  id: string;
  section: string;
  level: string;
  kind: string;
  check: string;
  statement: string;
}

export interface Catalog {
  sections: { number: string; title: string }[];
  requirements: CatalogRequirement[];
  profiles: string[];
  scenarios: { id: string; title: string; requirements: string[] }[];
}

export interface TreeSelection {
  requirements: string[];
  sections: string[];
}

const top = (section: string) => section.split('.')[0]!;

export class CatalogTree {
  private readonly rows: { el: HTMLElement; r: CatalogRequirement; text: string }[] = [];
  private readonly groups: { el: HTMLDetailsElement; section: string; subs: { el: HTMLElement; section: string }[] }[] = [];

  constructor(
    private readonly catalog: Catalog,
    private readonly onChange: () => void,
  ) {
    const tree = byId('tree');
    const titles = new Map(catalog.sections.map((s) => [s.number, s.title]));
    const tops = [...new Set(catalog.requirements.map((r) => top(r.section)))].sort((a, b) => Number(a) - Number(b));
    for (const t of tops) {
      const mine = catalog.requirements.filter((r) => top(r.section) === t);
      const group = h('details', { class: 'sec', 'data-section': t }, h('summary', {}, h('input', { type: 'checkbox', 'data-section': t, 'aria-label': `section ${t}` }), ` §${t} ${titles.get(t) ?? ''} `, h('span', { class: 'muted' }, `(${mine.length})`)));
      const subs: { el: HTMLElement; section: string }[] = [];
      for (const section of [...new Set(mine.map((r) => r.section))]) {
        const box = h('div', { class: 'sub', 'data-section': section });
        if (section !== t) box.append(h('label', { class: 'sub-title' }, h('input', { type: 'checkbox', 'data-section': section }), ` §${section} ${titles.get(section) ?? ''}`));
        for (const r of mine.filter((x) => x.section === section)) {
          const el = h('label', { class: 'req', 'data-id': r.id }, h('input', { type: 'checkbox', 'data-requirement': r.id }), ' ', h('b', {}, r.id), ' ', h('span', { class: `lvl l-${r.level}` }, r.level === 'none' ? 'obs' : r.level), ' ', h('span', { class: 'statement' }, r.statement));
          box.append(el);
          this.rows.push({ el, r, text: `${r.id} ${r.statement}`.toLowerCase() });
        }
        group.append(box);
        subs.push({ el: box, section });
      }
      tree.append(group);
      this.groups.push({ el: group, section: t, subs });
    }
    tree.addEventListener('change', () => this.onChange());
    // A click on a section's box ticks it without folding the section open or shut.
    tree.addEventListener('click', (e) => {
      if ((e.target as HTMLElement).matches('summary input')) e.stopPropagation();
    });
    for (const id of ['filter-text', 'filter-level', 'filter-check']) byId(id).addEventListener('input', () => this.filter());
    byId('select-shown').addEventListener('click', () => {
      for (const row of this.rows) if (!row.el.hidden) (row.el.querySelector('input') as HTMLInputElement).checked = true;
      this.onChange();
    });
    byId('select-none').addEventListener('click', () => {
      for (const box of tree.querySelectorAll<HTMLInputElement>('input[type=checkbox]')) box.checked = false;
      this.onChange();
    });
  }

  private filter(): void {
    const text = byId<HTMLInputElement>('filter-text').value.trim().toLowerCase();
    const level = byId<HTMLSelectElement>('filter-level').value;
    const check = byId<HTMLSelectElement>('filter-check').value;
    const words = text.split(/\s+/).filter(Boolean);
    for (const row of this.rows) row.el.hidden = !(words.every((w) => row.text.includes(w)) && (!level || row.r.level === level) && (!check || row.r.check === check));
    const filtering = words.length > 0 || level !== '' || check !== '';
    for (const g of this.groups) {
      for (const s of g.subs) s.el.hidden = !s.el.querySelector('.req:not([hidden])');
      g.el.hidden = g.subs.every((s) => s.el.hidden);
      g.el.open = filtering && !g.el.hidden;
    }
  }

  selection(): TreeSelection {
    const tree = byId('tree');
    return {
      requirements: [...tree.querySelectorAll<HTMLInputElement>('input[data-requirement]:checked')].map((i) => i.dataset.requirement!),
      sections: [...tree.querySelectorAll<HTMLInputElement>('input[data-section]:checked')].map((i) => i.dataset.section!),
    };
  }

  /** The selection in words, for the line under the tree. */
  describe(): string {
    const s = this.selection();
    if (s.requirements.length + s.sections.length === 0) return 'the whole suite';
    const parts = [...s.sections.map((x) => `§${x}`), ...s.requirements.slice(0, 6)];
    const more = s.requirements.length > 6 ? ` and ${s.requirements.length - 6} more` : '';
    return `only ${parts.join(', ')}${more}`;
  }
}
