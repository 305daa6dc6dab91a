/**
 * Distractor injection (DynamicToolBench `perturb_query.py`, mode `distractor`): a fixed unrelated
 * story is put in front of the query. No randomness: every query gets the same story.
 */
export const distractorStoryPrefix = 'Ignore the following irrelevant story and focus ONLY on the actual task.\n\n'
  + 'Story: Yesterday my friend and I spent hours talking about movies, cats, and random trivia. '
  + 'None of this is related to what I actually need you to do.\n\n'
  + 'Task: ';

export function addDistractorStory(query: string): string {
  return distractorStoryPrefix + query;
}
