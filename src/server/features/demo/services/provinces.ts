/**
 * Province-level figures for the big screens' map of China. A purchase's region is
 * free text ("江苏 南京", "上海", "广东省佛山市"); it belongs to the province whose short name
 * it starts with. The short names are those of the map's features (echarts' China map).
 */
export const PROVINCES: readonly string[] = [
  '北京',
  '天津',
  '河北',
  '山西',
  '内蒙古',
  '辽宁',
  '吉林',
  '黑龙江',
  '上海',
  '江苏',
  '浙江',
  '安徽',
  '福建',
  '江西',
  '山东',
  '河南',
  '湖北',
  '湖南',
  '广东',
  '广西',
  '海南',
  '重庆',
  '四川',
  '贵州',
  '云南',
  '西藏',
  '陕西',
  '甘肃',
  '青海',
  '宁夏',
  '新疆',
  '台湾',
  '香港',
  '澳门',
];

/** The province a region text names, or undefined (an empty or foreign region). */
export function provinceOf(region: string): string | undefined {
  const text = region.trim();
  return PROVINCES.find((province) => text.startsWith(province));
}

/** Counts by region folded into counts by province, largest first; regions of no province are left out. */
export function countsByProvince(
  rows: readonly { region: string | null; count: number }[],
): { name: string; count: number }[] {
  const totals = new Map<string, number>();
  for (const row of rows) {
    const province = row.region === null ? undefined : provinceOf(row.region);
    if (province) totals.set(province, (totals.get(province) ?? 0) + row.count);
  }
  return [...totals.entries()]
    .map(([name, count]) => ({ name, count }))
    .sort((a, b) => b.count - a.count || a.name.localeCompare(b.name));
}
