/*
 * tests/replay/recorder.h - the replay runner's test module: it sits in
 * the module chain (module-config: "testrecorder iterator", accepted only
 * by the runner) and writes down every event it sees, so that a scenario
 * can check the order in which the mesh runs the chain (CHECK_EVENTS).
 *
 * It passes every new query down at once and lets every answer that
 * comes back up through, as a module that does nothing would; what it
 * records is one line per event: "event qname qtype", and for an answer
 * coming up also its rcode and the types of its answer section ("moddone
 * www.example.com. A NOERROR CNAME A"). The log lives in the recorder
 * (one runner, one scenario at a time).
 */
#ifndef TESTS_REPLAY_RECORDER_H
#define TESTS_REPLAY_RECORDER_H

#include <stddef.h>

struct module_func_block;

/** the module's name in module-config */
#define RECORDER_NAME "testrecorder"

/** the recorder module */
extern const struct module_func_block recorder_module_block;

/** Forget what was recorded. */
void recorder_reset(void);

/**
 * What was recorded since the last reset, one event per line.
 * @return the text (valid until the next event or reset).
 */
const char *recorder_log(void);

#endif /* TESTS_REPLAY_RECORDER_H */
