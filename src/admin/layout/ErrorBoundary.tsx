import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  onError(error: Error, info: ErrorInfo): void;
  fallback: (error: Error, reset: () => void) => ReactNode;
  children: ReactNode;
}

/** Keeps a page failure inside the page and hands it to the error log. */
export class ErrorBoundary extends Component<Props, { error: Error | undefined }> {
  override state: { error: Error | undefined } = { error: undefined };

  static getDerivedStateFromError(error: Error): { error: Error } {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    this.props.onError(error, info);
  }

  override render(): ReactNode {
    if (this.state.error)
      return this.props.fallback(this.state.error, () => this.setState({ error: undefined }));
    return this.props.children;
  }
}
