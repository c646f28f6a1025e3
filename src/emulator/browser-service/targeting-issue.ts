/** One problem `POST /configurations/validate` reports, shared by every targeting check. */
export interface Issue {
  code: string;
  field: string;
  message: string;
  suggestion: string | null;
}
