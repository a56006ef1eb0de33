/** The platform mark: a leaf over a rising bar, in the brand colours. */
export function Logo({ size = 40 }: { size?: number }) {
  return (
    <svg width={size} height={size} viewBox="0 0 40 40" aria-hidden="true" className="logo">
      <rect width="40" height="40" rx="10" fill="#0f7b5a" />
      <path d="M10 29c0-10 6.5-17 20-18-0.5 13-7.5 19-17 19" fill="#7fd3b0" />
      <path d="M10 30c4-5 8-9 14-12" stroke="#fff" strokeWidth="2.2" fill="none" strokeLinecap="round" />
    </svg>
  );
}
