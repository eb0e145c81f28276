def route(rule):
    return rule
