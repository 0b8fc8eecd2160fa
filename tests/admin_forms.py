"""Posting an admin change form back as a browser would, in the tests of what an admin edit
does."""


def as_posted(form) -> dict:
    """What a browser posts back of a form as shown: each field's shown value."""
    posted = {}
    for field in form:
        value = field.field.prepare_value(field.value())
        if value is not None and value is not False:
            posted[field.html_name] = value
    return posted


def change_form(page) -> dict:
    """The admin change page's form and its inlines' forms, as a browser posts them back."""
    body = as_posted(page.context["adminform"].form)
    for inline in page.context.get("inline_admin_formsets", []):
        body |= as_posted(inline.formset.management_form)
        for form in inline.formset.forms:
            body |= as_posted(form)
    return body
