#!/bin/bash
# issue 44 long run, session 21 (frozen worktree /work/longtree2 at 38270b3)
cd /work/longtree2
export PYTHONPATH=/work/longmeta:/work/longtree2
PRESET=${PRESET:-unified_bf16}
exec nice -n 19 python -m cardrl.cli train doudizhu --preset $PRESET --stop-time 8h --eval-every 0 \
    --eval-every-frames 4000000 --eval-deals 1000 --eval-against rule rlcard random --checkpoint-every 5m --seed 0 \
    --out runs/long_doudizhu_$PRESET --resume
