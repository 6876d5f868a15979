export interface BenchRow {
  group: string;
  name: string;
  value: number;
  unit: string;
  note?: string;
}
