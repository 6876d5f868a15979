import type { SubjectCount } from '../api/knowledge.ts';

interface SubjectsSidebarProps {
  subjects: SubjectCount[];
  selected: string;
  total: number | undefined;
  onSelect: (subject: string) => void;
}

/** Subjects, most used first; picking one filters the table to it. */
export function SubjectsSidebar({ subjects, selected, total, onSelect }: SubjectsSidebarProps) {
  return (
    <aside className="subjects" aria-label="Subjects">
      <h2 className="sidebar-title">Subjects</h2>
      <ul>
        <li>
          <button type="button" className={selected === '' ? 'subject active' : 'subject'} onClick={() => onSelect('')}>
            <span>All subjects</span>
            {total !== undefined && <span className="count">{total}</span>}
          </button>
        </li>
        {subjects.map((item) => (
          <li key={item.subject}>
            <button type="button" className={selected === item.subject ? 'subject active' : 'subject'} onClick={() => onSelect(selected === item.subject ? '' : item.subject)}>
              <span>{item.subject}</span>
              <span className="count">{item.count}</span>
            </button>
          </li>
        ))}
      </ul>
      {subjects.length === 0 && <p className="muted small">Subjects appear as you add entries.</p>}
    </aside>
  );
}
