"""Query planners. Each YAML option under ``conf/planner/`` maps to one class here."""
