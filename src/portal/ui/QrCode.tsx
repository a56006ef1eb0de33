/** The params whose addresses the QR codes encode (the server draws them: no QR code in the bundle). */
export type QrParam = 'buyerAccountUrl' | 'supplierAccountUrl';

/**
 * A QR code drawn by the server from a param (GET /api/notification/home/qrcode), as an image
 * with its size set; the footer's load lazily, below the fold.
 */
export function QrCode({
  param,
  size = 96,
  label,
  isLazy = true,
}: {
  param: QrParam;
  size?: number;
  label: string;
  isLazy?: boolean;
}) {
  return (
    <img
      className="qr-code"
      src={`/api/notification/home/qrcode?param=${param}`}
      width={size}
      height={size}
      alt={label}
      loading={isLazy ? 'lazy' : 'eager'}
      decoding="async"
      data-testid={`qr-${param}`}
    />
  );
}
