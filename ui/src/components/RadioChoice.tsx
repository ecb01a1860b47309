/** One radio button of a list of choices, with its label and a line saying what it does. */
export function RadioChoice({
  name,
  value,
  checked,
  onChoose,
  label,
  hint,
  testId,
}: {
  name: string;
  value: string;
  checked: boolean;
  onChoose: () => void;
  label: string;
  hint: string;
  testId: string;
}) {
  return (
    <label className="choice">
      <input type="radio" name={name} value={value} checked={checked} onChange={onChoose} data-testid={testId} />
      <span>
        <span className="choice-label">{label}</span>
        <span className="hint">{hint}</span>
      </span>
    </label>
  );
}
