#!/bin/bash
# issue 44 long run, session 22: the s21 run resumed (frozen worktree /work/longtree3 at 786feb4)
cd /work/longtree3
export PYTHONPATH=/work/longmeta:/work/longtree3
PRESET=${PRESET:-unified_bf16}
exec nice -n 19 python -m cardrl.cli train doudizhu --preset $PRESET --stop-time 8h --eval-every 0 \
    --eval-every-frames 4000000 --eval-deals 1000 --eval-against rule rlcard random --checkpoint-every 5m --seed 0 \
    --out runs/long_doudizhu_$PRESET --resume
