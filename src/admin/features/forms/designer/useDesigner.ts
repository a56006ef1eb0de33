import { useCallback, useMemo, useReducer } from 'react';
import { commit, historyOf, redo, undo, type DesignModel, type History } from './model.js';

interface State {
  history: History;
  selectedId: string | undefined;
  /** The key of the last change: typing in one property is one step of history, not one per key. */
  lastKey: string | undefined;
}

type Action =
  | { type: 'change'; model: DesignModel; key?: string; select?: string | null }
  | { type: 'reset'; model: DesignModel }
  | { type: 'select'; id: string | undefined }
  | { type: 'undo' }
  | { type: 'redo' };

function reduce(state: State, action: Action): State {
  switch (action.type) {
    case 'change': {
      const isSameStep = action.key !== undefined && action.key === state.lastKey;
      const history = isSameStep
        ? { ...state.history, present: action.model, future: [] }
        : commit(state.history, action.model);
      const selectedId = action.select === null ? undefined : (action.select ?? state.selectedId);
      return { history, selectedId, lastKey: action.key };
    }
    case 'reset':
      return { history: historyOf(action.model), selectedId: undefined, lastKey: undefined };
    case 'select':
      return state.selectedId === action.id ? state : { ...state, selectedId: action.id, lastKey: undefined };
    case 'undo':
      return { ...state, history: undo(state.history), lastKey: undefined };
    case 'redo':
      return { ...state, history: redo(state.history), lastKey: undefined };
  }
}

export interface Designer {
  model: DesignModel;
  selectedId: string | undefined;
  canUndo: boolean;
  canRedo: boolean;
  /** A new model; `key` groups the changes of one property being typed into one undo step. */
  change: (model: DesignModel, options?: { key?: string; select?: string | null }) => void;
  reset: (model: DesignModel) => void;
  select: (id: string | undefined) => void;
  undo: () => void;
  redo: () => void;
}

/** The designer's state: the model with its undo history and the selected item. */
export function useDesigner(initial: () => DesignModel): Designer {
  const [state, dispatch] = useReducer(reduce, undefined, () => ({
    history: historyOf(initial()),
    selectedId: undefined,
    lastKey: undefined,
  }));
  const change = useCallback(
    (model: DesignModel, options: { key?: string; select?: string | null } = {}) =>
      dispatch({ type: 'change', model, ...options }),
    [],
  );
  const reset = useCallback((model: DesignModel) => dispatch({ type: 'reset', model }), []);
  const select = useCallback((id: string | undefined) => dispatch({ type: 'select', id }), []);
  const undoStep = useCallback(() => dispatch({ type: 'undo' }), []);
  const redoStep = useCallback(() => dispatch({ type: 'redo' }), []);
  return useMemo(
    () => ({
      model: state.history.present,
      selectedId: state.selectedId,
      canUndo: state.history.past.length > 0,
      canRedo: state.history.future.length > 0,
      change,
      reset,
      select,
      undo: undoStep,
      redo: redoStep,
    }),
    [state, change, reset, select, undoStep, redoStep],
  );
}
